/** Request bodies from the payload generator, for the raw HTTP/1.1 client (http1.ts). */
import type { SdkData } from "../../compile/sdk-format.js";
import { makePayload, POOL_SIZE, STREAM_ALIGN, type Payload } from "../load/payload.js";
import type { WriteChunk } from "./http1.js";

/** Streamed bodies go out in chunks of this size, each buffer reused as soon as the socket let go of it. */
const STREAM_CHUNK = STREAM_ALIGN;
// 2 MiB pieces, two per body in flight (4 MiB a request, as with 1 MiB × 4 before): half the writes and
// callbacks per GiB, ~8 % less client CPU on 64 MiB PUTs; more pieces in flight measured no better.
const STREAM_BUFFERS = 2;

/**
 * Chunk buffers no write holds, by the layout of the bytes they hold (Payload.layout). A chunk whose layout
 * has a spare is that buffer restamped — 16 bytes per 4 KiB written, no copy (objects start on a pool
 * chunk, so a few layouts serve every object). Otherwise a new buffer is made while fewer than SPARES are
 * idle, else an idle one of another layout is refilled by a copy: the buffers stay at most SPARES beyond
 * the most writes in flight at once, and the idle ones cover every layout (with none idle, nearly every
 * chunk was a copy: the writes hold most buffers most of the time). A fresh 2 MiB buffer is fresh pages,
 * which cost more to fault in than to fill, so buffers are kept rather than made again, and made before
 * the timed window (warmStreams).
 */
const spares = new Map<string | undefined, Buffer[]>();
let spareCount = 0;
const SPARES = 16;
/** Chunk buffers made so far (idle or held by a write; one a failed write kept is still counted). */
let made = 0;
/** How many chunk buffers this thread has made (for tests: a warm one makes none while streaming). */
export const streamBuffersMade = () => made;

/**
 * Makes, before a timed window, every chunk buffer `bodies` streamed bodies of up to `size` bytes in flight
 * at once can hold and the idle ones beside them (SPARES): a fresh 2 MiB buffer is 512 page faults, which in
 * the window cost the first requests more than their copies (64 MiB PUTs, 8 in flight, 3 s: 0.19–0.21
 * CPU-s/GiB with the buffers made in the window, 0.17–0.18 made before). They hold the chunks of a payload
 * over the whole pool, whose layouts are those of every object's chunks: each buffer's first use is a
 * restamp, and none is made later.
 */
export function warmStreams(bodies: number, size: number, data: SdkData): void {
  const wanted = bodies > 0 ? bodies * Math.min(STREAM_BUFFERS, Math.ceil(size / STREAM_CHUNK)) + SPARES : 0;
  if (made >= wanted) return;
  const pool = makePayload("warm-up", POOL_SIZE, data);
  for (let offset = 0; made < wanted; made++, offset = (offset + STREAM_CHUNK) % POOL_SIZE)
    giveBack(
      pool.layout(offset, STREAM_CHUNK),
      pool.slice(offset, STREAM_CHUNK, Buffer.allocUnsafe(STREAM_CHUNK)),
    );
}

function takeChunk(payload: Payload, layout: string | undefined, offset: number, length: number): Buffer {
  const same = layout !== undefined ? takeSpare(layout) : undefined;
  if (same) return payload.restamp(same, offset, length);
  let other: Buffer | undefined;
  if (spareCount >= SPARES) {
    // From the layout with the most idle: taking from any one would leave it short, and its chunks would
    // then miss in turn.
    let fullest: [string | undefined, number] = [undefined, 0];
    for (const [key, list] of spares) if (list.length > fullest[1]) fullest = [key, list.length];
    other = takeSpare(fullest[0]);
  }
  if (!other) made++;
  return payload.slice(offset, length, other ?? Buffer.allocUnsafe(STREAM_CHUNK));
}

/** An idle buffer of this layout, if any; a layout without idle buffers leaves no entry behind. */
function takeSpare(layout: string | undefined): Buffer | undefined {
  const list = spares.get(layout);
  const buffer = list?.pop();
  if (!buffer) return undefined;
  if (list!.length === 0) spares.delete(layout);
  spareCount--;
  return buffer;
}

function giveBack(layout: string | undefined, chunk: Buffer) {
  // The whole buffer goes back; its layout is that of the bytes it holds (a short last chunk is keyed by
  // its length, so a later short chunk of the same length and pool offset finds it).
  const buffer =
    chunk.length === STREAM_CHUNK ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, STREAM_CHUNK);
  const list = spares.get(layout) ?? [];
  list.push(buffer);
  spares.set(layout, list);
  spareCount++;
}

/**
 * A request body producer that writes `before`, the payload in STREAM_CHUNK pieces, then `after`, with at
 * most STREAM_BUFFERS pieces in flight; a piece's buffer goes back to the spares once the socket has let go
 * of it (after a failed write it is left to the GC: the socket may still hold it).
 */
export function payloadBody(payload: Payload, before?: Buffer, after?: Buffer) {
  return async (write: WriteChunk) => {
    const inFlight: Promise<void>[] = [];
    if (before) inFlight.push(settledLater(write(before)));
    for (let offset = 0, i = 0; offset < payload.size; offset += STREAM_CHUNK, i++) {
      const slot = i % STREAM_BUFFERS;
      await inFlight[slot];
      const length = Math.min(STREAM_CHUNK, payload.size - offset);
      const layout = payload.layout(offset, length);
      const chunk = takeChunk(payload, layout, offset, length);
      inFlight[slot] = settledLater(write(chunk).then(() => giveBack(layout, chunk)));
    }
    if (after) inFlight.push(settledLater(write(after)));
    await Promise.all(inFlight);
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
