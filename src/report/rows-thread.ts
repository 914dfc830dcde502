/** A thread of rows-threads.ts: one pass over a byte range of a results file, posted back as plain data. */
import { parentPort, workerData } from "node:worker_threads";
import { RunAccumulator } from "./aggregate.js";
import type { RangeResult, RangeTask } from "./rows-threads.js";
import { scanRows } from "./rows.js";

const { file, range, planCases } = workerData as RangeTask;
const { pass, scan } = await scanRows(file, new RunAccumulator(planCases), range);
const { partial, transfer } = pass.partial();
parentPort!.postMessage({ partial, scan } satisfies RangeResult, transfer);
