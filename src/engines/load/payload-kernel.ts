/**
 * The payload generator's inner loop, in WebAssembly (payload-kernel.wat): 128-bit SIMD at tens of GB/s,
 * where a JavaScript loop makes a few. It writes into slabs: WebAssembly memories of their own, each holding
 * the 64 KiB table at address 0 and chunk buffers after it. A slab never grows (growing would detach the
 * buffers a socket may still hold); more buffers are more slabs.
 */
import { createCipheriv, createHash } from "node:crypto";
import { readFileSync } from "node:fs";

export const BLOCK = 4096;
/** The table of random blocks every payload's blocks are made from (payload-kernel.wat). */
const TABLE_SIZE = 16 * BLOCK;
const PAGE = 65536;

type Blocks = (
  dst: number,
  count: number,
  firstLow: number,
  firstHigh: number,
  id0Low: number,
  id0High: number,
  id1Low: number,
  id1High: number,
) => void;

/** The part of the WebAssembly API used here (TypeScript declares its values only in the DOM's lib). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let kernel: object | undefined;
let table: Buffer | undefined;

/**
 * The table is the AES-256-CTR keystream of a fixed key: as incompressible as random bytes, and the same in
 * every process, so an object's bytes depend only on its identity (as docs/sdk-format.md promises) and a
 * test or another process can regenerate and check them.
 */
function tableBytes(): Buffer {
  if (table) return table;
  const key = createHash("sha256").update("benchspec payload table 1").digest();
  const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16));
  return (table = Buffer.concat([cipher.update(Buffer.alloc(TABLE_SIZE)), cipher.final()]));
}

/** An object's identity as the kernel takes it: four 32-bit words of its hash. */
export type KernelId = readonly [number, number, number, number];

/** A buffer of `capacity` bytes (whole blocks) at `at` in a slab. */
export interface Chunk {
  readonly slab: Slab;
  readonly at: number;
  readonly capacity: number;
}

export class Slab {
  /** The whole memory, table included. */
  readonly bytes: Buffer;
  readonly #blocks: Blocks;

  constructor(capacity: number) {
    kernel ??= new wasm.Module(readFileSync(new URL("./payload-kernel.wasm", import.meta.url)));
    const memory = new wasm.Memory({ initial: Math.ceil((TABLE_SIZE + capacity) / PAGE) });
    this.#blocks = new wasm.Instance(kernel, { env: { memory } }).exports.blocks as Blocks;
    this.bytes = Buffer.from(memory.buffer);
    tableBytes().copy(this.bytes, 0);
  }

  /** Writes blocks first … first + count - 1 of the object `id` at `at`. */
  blocks(at: number, first: number, count: number, id: KernelId): void {
    this.#blocks(at, count, first % 2 ** 32, Math.floor(first / 2 ** 32), id[0], id[1], id[2], id[3]);
  }
}

/** `count` chunk buffers of `size` bytes (a multiple of BLOCK), in one new slab. */
export function newChunks(count: number, size: number): Chunk[] {
  const slab = new Slab(count * size);
  return Array.from({ length: count }, (_, i) => ({ slab, at: TABLE_SIZE + i * size, capacity: size }));
}
