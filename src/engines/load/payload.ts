/**
 * Benchmark payloads: unique, incompressible bytes at near-memcpy speed, never a whole object in memory.
 * A pool of pseudo-random bytes, the same in every process, is made once; an object's byte range is a copy
 * of the pool (from a 2 MiB-aligned offset derived from the object's identity) with a 16-byte stamp —
 * identity hash and block number — at the start of every 4 KiB block, so no two blocks of a run, repetition
 * or object are equal (content-addressed stores such as IPFS cannot dedupe them). The same (runId, seed,
 * pass) always gives the same bytes, in any process.
 */
import { createCipheriv, createHash } from "node:crypto";
import { endianness } from "node:os";
import type { SdkData } from "../../compile/sdk-format.js";

/** The pool's size: a multiple of STREAM_ALIGN. */
export const POOL_SIZE = 8 * 2 ** 20;
const BLOCK = 4096;
const STAMP = 16;
const LITTLE_ENDIAN = endianness() === "LE";
/** Where an object's bytes start in the pool: a multiple of this (the streamed body's chunk size). */
export const STREAM_ALIGN = 2 * 2 ** 20;

let pool: Buffer | undefined;
/**
 * The pool is the AES-256-CTR keystream of a fixed key: as incompressible as random bytes, and the same in
 * every process, so an object's bytes depend only on its identity (as docs/sdk-format.md promises) and a
 * test or another process can regenerate and check them.
 */
const randomPool = () => (pool ??= keystream(POOL_SIZE));

/**
 * Makes the pool now, and runs the copy once: an engine calls it before its timed window, which the first
 * object's tens of milliseconds of keystream and cold code (in a fresh process) would otherwise stretch.
 */
export function warmPayloads(): void {
  makePayload("warm-up", BLOCK, "random").slice(0, BLOCK);
}

function keystream(size: number): Buffer {
  const key = createHash("sha256").update("benchspec payload pool 1").digest();
  const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

export interface Payload {
  readonly size: number;
  /**
   * Bytes [offset, offset + length) of the object, in a new buffer or written into the first `length` bytes
   * of `into` (a caller that knows when a buffer is free again saves the allocation: fresh large buffers
   * cost page faults and GC, several times the copy itself).
   */
  slice(offset: number, length: number, into?: Buffer): Buffer;
  /**
   * What bytes [offset, offset + length) hold apart from their stamps: two ranges (of any payloads) with the
   * same layout differ only in the stamps, so a buffer filled for one becomes the other by restamp().
   * Undefined when stamps and zeros overlap (compressible shares above 99.6 %), where only slice() is exact.
   */
  layout(offset: number, length: number): string | undefined;
  /**
   * Turns `buffer`, which holds bytes of a range with the same layout(offset, length) — of this payload or
   * another — into this payload's bytes [offset, offset + length) by writing the stamps only: 16 bytes per
   * 4 KiB instead of a copy of every byte (a streamed PUT's chunks cost the copy more than the socket).
   */
  restamp(buffer: Buffer, offset: number, length: number): Buffer;
}

export function makePayload(identity: string, size: number, data: SdkData): Payload {
  const digest = createHash("sha256").update(identity).digest();
  // On a STREAM_ALIGN boundary of the pool: a streamed object's chunks are then one of a few pool ranges,
  // whose buffers restamp() reuses across objects (the stamps, not the offset, make each block unique).
  const start = (digest.readUInt32LE(0) % (POOL_SIZE / STREAM_ALIGN)) * STREAM_ALIGN;
  const idLow = digest.readUInt32LE(0);
  const idHigh = digest.readUInt32LE(4);
  const zeroShare = data === "zero" ? 1 : typeof data === "object" ? data.compressible / 100 : 0;
  const zeroFrom = Math.round(BLOCK * (1 - zeroShare));

  // Partial stamps at a range's edges are copied from here (once per payload: stamp() is synchronous).
  const edge = Buffer.allocUnsafe(STAMP);
  edge.writeUInt32LE(idLow, 0);
  edge.writeUInt32LE(idHigh, 4);
  const stamp = (out: Buffer, offset: number, length: number) => {
    // Whole stamps (all but a range's edges) through a 32-bit view when the blocks start 4-byte aligned in
    // memory: a quarter of the stores of writeUInt32LE, without its checks (the view is little-endian only
    // on a little-endian machine, so others take the checked path).
    const firstAt = Math.ceil(offset / BLOCK) * BLOCK - offset;
    const words =
      LITTLE_ENDIAN && firstAt + STAMP <= length && (out.byteOffset + firstAt) % 4 === 0
        ? new Uint32Array(out.buffer, out.byteOffset + firstAt, Math.floor((length - firstAt) / 4))
        : undefined;
    for (let block = Math.floor(offset / BLOCK); block * BLOCK < offset + length; block++) {
      const at = block * BLOCK - offset;
      // The block number as a 64-bit little-endian integer, in two halves (a BigInt per block costs more).
      const low = block % 2 ** 32;
      const high = Math.floor(block / 2 ** 32);
      if (at >= 0 && at + STAMP <= length) {
        if (words) {
          const word = (at - firstAt) >> 2;
          words[word] = idLow;
          words[word + 1] = idHigh;
          words[word + 2] = low;
          words[word + 3] = high;
        } else {
          out.writeUInt32LE(idLow, at);
          out.writeUInt32LE(idHigh, at + 4);
          out.writeUInt32LE(low, at + 8);
          out.writeUInt32LE(high, at + 12);
        }
      } else {
        edge.writeUInt32LE(low, 8);
        edge.writeUInt32LE(high, 12);
        copyClipped(edge, out, at, length);
      }
    }
  };

  const slice = (offset: number, length: number, into?: Buffer): Buffer => {
    const out = into && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    if (zeroShare === 1) return out.fill(0);
    const source = randomPool();
    for (let done = 0; done < length;) {
      const at = (start + offset + done) % POOL_SIZE;
      const n = Math.min(length - done, POOL_SIZE - at);
      source.copy(out, done, at, at + n);
      done += n;
    }
    stamp(out, offset, length);
    if (zeroFrom < BLOCK) {
      for (
        let blockStart = Math.floor(offset / BLOCK) * BLOCK;
        blockStart < offset + length;
        blockStart += BLOCK
      ) {
        const zeroStart = Math.max(blockStart + zeroFrom, offset) - offset;
        const zeroEnd = Math.min(blockStart + BLOCK, offset + length) - offset;
        if (zeroEnd > zeroStart) out.fill(0, zeroStart, zeroEnd);
      }
    }
    return out;
  };

  return {
    size,
    slice,
    layout: (offset, length) =>
      zeroShare === 1
        ? `zero:${length}`
        : zeroFrom < STAMP
          ? undefined
          : `${(start + offset) % POOL_SIZE}:${offset % BLOCK}:${length}:${zeroFrom}`,
    restamp: (buffer, offset, length) => {
      const out = buffer.subarray(0, length);
      if (zeroShare < 1) stamp(out, offset, length);
      return out;
    },
  };
}

/** Copies `src` to `dest` at `at` (which may be negative or run past `limit`), keeping only what fits. */
function copyClipped(src: Buffer, dest: Buffer, at: number, limit: number) {
  const from = Math.max(0, -at);
  const to = Math.min(src.length, limit - at);
  if (to > from) src.copy(dest, at + from, from, to);
}
