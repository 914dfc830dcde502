/**
 * Child process of memory.ts: makePayload's speed in a fresh process (as in a benchspec run, not in the bench
 * process whose heap is full of other sections' garbage). Prints {"<slice bytes>": bytes per second, …}:
 * slices of 64 MiB objects in new buffers (what streamed bodies get), and 8 MiB slices into one reused buffer
 * (what multipart parts and buffered bodies get).
 *
 *   tsx bench/payload-rate.ts <total bytes> <slice bytes>…
 */
import { performance } from "node:perf_hooks";
import { makePayload } from "../src/engines/load/payload.js";

const [total, ...slices] = process.argv.slice(2).map(Number) as [number, ...number[]];
const OBJECT = 64 * 2 ** 20;

function rate(slice: number, reuse: boolean, round: number): number {
  const into = reuse ? Buffer.allocUnsafe(slice) : undefined;
  const t0 = performance.now();
  let bytes = 0;
  for (let object = 0; bytes < total; object++) {
    const payload = makePayload(`bench|${round}|${object}`, OBJECT, "random");
    for (let offset = 0; offset < OBJECT && bytes < total; offset += slice) {
      bytes += payload.slice(offset, slice, into).length;
    }
  }
  return bytes / ((performance.now() - t0) / 1000);
}

const median3 = (f: (round: number) => number) => [f(0), f(1), f(2), f(3)].slice(1).sort((a, b) => a - b)[1]!;
const result: Record<string, number> = {};
for (const slice of slices) result[String(slice)] = median3((round) => rate(slice, false, round));
result[`${8 * 2 ** 20}-reused`] = median3((round) => rate(8 * 2 ** 20, true, round));
process.stdout.write(`${JSON.stringify(result)}\n`);
