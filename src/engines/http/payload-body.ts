/** Request bodies from the payload generator, for the raw HTTP/1.1 client (http1.ts). */
import type { Payload } from "../load/payload.js";
import type { WriteChunk } from "./http1.js";

/** Streamed bodies go out in chunks of this size from a few reused buffers. */
const STREAM_CHUNK = 1 << 20;
const STREAM_BUFFERS = 4;

/**
 * Chunk buffers no request holds: taken by the next body, so a run allocates STREAM_BUFFERS per request in
 * flight once. A fresh 1 MiB buffer is fresh pages: first written, they fault (~256 per MiB), which cost
 * more than filling them (npm run bench: 64 MiB PUTs spent more CPU in the copy into fresh chunks than in
 * the socket writes).
 */
const spare: Buffer[] = [];

/**
 * A request body producer that writes `before`, the payload in STREAM_CHUNK pieces, then `after`; a piece's
 * buffer is refilled only once the socket has let go of it, so a body of any size costs STREAM_BUFFERS
 * buffers, reused by the next body once every write is done (after a failed write they are left to the GC:
 * the socket may still hold them).
 */
export function payloadBody(payload: Payload, before?: Buffer, after?: Buffer) {
  return async (write: WriteChunk) => {
    const buffers = Array.from(
      { length: STREAM_BUFFERS },
      () => spare.pop() ?? Buffer.allocUnsafe(STREAM_CHUNK),
    );
    const inFlight: Promise<void>[] = [];
    if (before) inFlight.push(settledLater(write(before)));
    for (let offset = 0, i = 0; offset < payload.size; offset += STREAM_CHUNK, i++) {
      const slot = i % STREAM_BUFFERS;
      await inFlight[slot];
      const chunk = payload.slice(offset, Math.min(STREAM_CHUNK, payload.size - offset), buffers[slot]);
      inFlight[slot] = settledLater(write(chunk));
    }
    if (after) inFlight.push(settledLater(write(after)));
    await Promise.all(inFlight);
    spare.push(...buffers);
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
