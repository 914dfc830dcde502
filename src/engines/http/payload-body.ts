/** Request bodies from the payload generator, for the raw HTTP/1.1 client (http1.ts). */
import { newChunks, type Chunk, type Payload } from "../load/payload.js";
import type { WriteChunk } from "./http1.js";

/**
 * Streamed bodies go out in chunks of this size, one at a time: each is generated into its buffer once the
 * socket has taken the one before, so the system call copies it into the socket while it is in the CPU's
 * cache. Client CPU-seconds per GiB of 64 MiB PUTs to MinIO, 8 in flight (`perf record -a` over 4 s of
 * steady state, medians of 5 interleaved rounds): one 256 KiB chunk at a time 0.113; two in flight per body
 * 0.126; one of 512 KiB 0.122; 2 MiB chunks of a pool kept filled and restamped, whose copy into the socket
 * read them from memory, 0.139; warp 0.135.
 */
const STREAM_CHUNK = 256 * 2 ** 10;
/** Chunk buffers made at once, in one slab (payload-kernel.ts). */
const SLAB_CHUNKS = 16;

/** Chunk buffers no write holds, the last released on top: the likeliest to be in cache still. */
const idle: Chunk[] = [];
/** Chunk buffers made so far (idle or held by a write; one a failed write kept is still counted). */
let made = 0;
/** How many chunk buffers this thread has made (for tests: a warm one makes none while streaming). */
export const streamBuffersMade = () => made;

/**
 * Makes, before a timed window, the chunk buffers of `bodies` streamed bodies in flight at once (one each):
 * fresh memory is page faults, which in the window would cost the first requests.
 */
export function warmStreams(bodies: number): void {
  while (made < bodies) grow();
}

function grow() {
  idle.push(...newChunks(SLAB_CHUNKS, STREAM_CHUNK));
  made += SLAB_CHUNKS;
}

function take(): Chunk {
  if (idle.length === 0) grow();
  return idle.pop()!;
}

/**
 * A request body producer that writes `before`, the payload in STREAM_CHUNK pieces, then `after`; a piece's
 * buffer goes back to the idle ones once the socket has let go of it (after a failed write it is left out:
 * the socket may still hold it).
 */
export function payloadBody(payload: Payload, before?: Buffer, after?: Buffer) {
  return async (write: WriteChunk) => {
    const head = before && settledLater(write(before));
    for (let offset = 0; offset < payload.size; offset += STREAM_CHUNK) {
      const chunk = take();
      await write(payload.fill(chunk, offset, Math.min(STREAM_CHUNK, payload.size - offset)));
      idle.push(chunk);
    }
    await Promise.all([head, after && write(after)]);
  };
}

/**
 * Marks a write's rejection as handled now: when the request ends early (an error answer, an abort), every
 * write still in flight rejects, but only one is awaited before the producer stops; the others must not
 * become unhandled rejections, which end the process.
 */
function settledLater(write: Promise<void>): Promise<void> {
  write.catch(() => {});
  return write;
}
