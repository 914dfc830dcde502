/**
 * Benchmark payloads: unique, incompressible bytes at memory speed, never a whole object in memory.
 * An object is a sequence of 4 KiB blocks; block b is one of the 16 blocks of a 64 KiB table of
 * pseudo-random bytes (the same in every process) XORed with a 16-byte key of its own, which a bijective
 * mix derives from the object's identity and b (payload-kernel.wat). Every byte depends on the identity:
 * no two blocks of a run are equal, and a compressor finds no repeat at any distance. The table stays in
 * the CPU's cache, so a chunk is generated at cache speed just before it is written, and the system call
 * copies it into the socket from cache too (bytes copied from a larger pool, or buffers kept filled between
 * uses, would be read from memory: three times the cost of that copy).
 * The same (runId, seed, pass) always gives the same bytes, in any process.
 */
import { createHash } from "node:crypto";
import type { SdkData } from "../../emit/sdk-format.js";
import { BLOCK, newChunks, type Chunk, type KernelId } from "./payload-kernel.js";

export type { Chunk } from "./payload-kernel.js";
export { newChunks } from "./payload-kernel.js";

/** Where slice() generates before copying out: whole blocks, so any range is a few calls. */
const SCRATCH = 2 ** 20;
let scratch: Chunk | undefined;

/**
 * Loads the kernel and makes its table and scratch now, and generates a block once: an engine calls it
 * before its timed window, which cold code (in a fresh process) would otherwise stretch.
 */
export function warmPayloads(): void {
  makePayload("warm-up", BLOCK, "random").slice(0, BLOCK);
}

export interface Payload {
  readonly size: number;
  /**
   * Bytes [offset, offset + length) of the object, in a new buffer or written into the first `length` bytes
   * of `into` (a caller that knows when a buffer is free again saves the allocation: fresh large buffers
   * cost page faults and GC, several times the generation itself).
   */
  slice(offset: number, length: number, into?: Buffer): Buffer;
  /**
   * Bytes [offset, offset + length) of the object generated into `chunk` (its capacity at least `length`
   * rounded up to whole blocks); `offset` is on a block boundary. Returns the view of them.
   */
  fill(chunk: Chunk, offset: number, length: number): Buffer;
}

export function makePayload(identity: string, size: number, data: SdkData): Payload {
  const digest = createHash("sha256").update(identity).digest();
  const word = (at: number) => digest.readUInt32LE(at);
  const id: KernelId = [word(0), word(4), word(8), word(12)];
  const zeroShare = data === "zero" ? 1 : typeof data === "object" ? data.compressible / 100 : 0;
  // Each block's bytes from here on are zeros (BLOCK: none are).
  const zeroFrom = Math.round(BLOCK * (1 - zeroShare));

  const fill = (chunk: Chunk, offset: number, length: number): Buffer => {
    const blocks = Math.ceil(length / BLOCK);
    if (offset % BLOCK !== 0 || blocks * BLOCK > chunk.capacity)
      throw new RangeError(
        `payload fill of ${length} bytes at ${offset} into a ${chunk.capacity}-byte chunk`,
      );
    const view = chunk.slab.bytes.subarray(chunk.at, chunk.at + length);
    if (zeroFrom === 0) return view.fill(0);
    chunk.slab.blocks(chunk.at, offset / BLOCK, blocks, id);
    if (zeroFrom < BLOCK)
      for (let start = 0; start + zeroFrom < length; start += BLOCK)
        view.fill(0, start + zeroFrom, Math.min(start + BLOCK, length));
    return view;
  };

  const slice = (offset: number, length: number, into?: Buffer): Buffer => {
    const out = into && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    if (zeroFrom === 0) return out.fill(0);
    scratch ??= newChunks(1, SCRATCH)[0]!;
    for (let done = 0; done < length;) {
      const skip = (offset + done) % BLOCK;
      const n = Math.min(length - done, SCRATCH - skip);
      fill(scratch, offset + done - skip, skip + n).copy(out, done, skip, skip + n);
      done += n;
    }
    return out;
  };

  return { size, slice, fill };
}
