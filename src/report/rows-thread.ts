/** A thread of rows-threads.ts: one pass over a byte range of a results file, posted back as plain data. */
import { parentPort, workerData } from "node:worker_threads";
import { RunModel } from "../results/model/accumulator.js";
import type { RangeResult, RangeTask } from "./rows-threads.js";
import { scanRows } from "./rows.js";

const { file, range, plan, model } = workerData as RangeTask;
const { pass, scan } = await scanRows(file, new RunModel(plan, model), range);
const { partial, transfer } = pass.partial();
parentPort!.postMessage({ partial, scan } satisfies RangeResult, transfer);
