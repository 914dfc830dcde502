/**
 * Child process of memory.ts: the payload generator's speed in a fresh process (as in a benchspec run, not in
 * the bench process whose heap is full of other sections' garbage). Prints {"<name>": bytes per second, …}:
 *   - "streamed": 64 MiB bodies through payloadBody, 8 at once, as streamed PUTs and adds get them (256 KiB
 *     chunks generated into buffers made before), to a sink that holds each chunk until the next turn of
 *     the event loop (so the buffers go round, as when a socket holds them);
 *   - "reused": 8 MiB slices into one reused buffer (multipart parts and buffered bodies).
 *
 *   tsx bench/payload-rate.ts <total bytes>
 */
import { performance } from "node:perf_hooks";
import { payloadBody, warmStreams } from "../src/engines/http/payload-body.js";
import { makePayload } from "../src/engines/load/payload.js";

const total = Number(process.argv[2]);
const OBJECT = 64 * 2 ** 20;

async function rate(round: number, move: (object: number) => Promise<number>): Promise<number> {
  const t0 = performance.now();
  let bytes = 0;
  for (let object = 0; bytes < total; object++) bytes += await move(round * 1e6 + object);
  return bytes / ((performance.now() - t0) / 1000);
}

const payloadOf = (object: number) => makePayload(`bench|${object}`, OBJECT, "random");

function sliced(slice: number, into: Buffer) {
  return async (object: number) => {
    const payload = payloadOf(object);
    for (let offset = 0; offset < OBJECT; offset += slice) payload.slice(offset, slice, into);
    return OBJECT;
  };
}

const BODIES = 8;

async function streamed(object: number): Promise<number> {
  let bytes = 0;
  const sink = (chunk: Buffer) =>
    new Promise<void>((done) => {
      bytes += chunk.length;
      setImmediate(done);
    });
  await Promise.all(
    Array.from({ length: BODIES }, (_, i) => payloadBody(payloadOf(object * BODIES + i))(sink)),
  );
  return bytes;
}

/** The median of rounds 1–3 (round 0 warms the code up). */
async function median3(move: (object: number) => Promise<number>): Promise<number> {
  const rates = [];
  for (let round = 0; round < 4; round++) rates.push(await rate(round, move));
  return rates.slice(1).sort((a, b) => a - b)[1]!;
}

warmStreams(BODIES);
const result = {
  streamed: await median3(streamed),
  reused: await median3(sliced(8 * 2 ** 20, Buffer.allocUnsafe(8 * 2 ** 20))),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
