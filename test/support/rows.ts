/** A planned object-engine case and its result rows, for tests of summaries and verdicts. */
import type { Case } from "../../src/plan/types.js";
import type { ResultRow } from "../../src/rows/row.js";

export const objectCase = (id: string, engine: "s3" | "ipfs" = "s3"): Case => ({
  id,
  index: 0,
  workload: "w",
  target: "t",
  targetKind: engine,
  engine,
  op: "get",
  params: { target: "t", engine, op: "get", repeat: 3, warmup: 0 },
  sources: {},
  dims: [],
});

/** A successful repetition of case `id`: 100 MB and 10 operations in one second. */
export const objectRow = (id: string, repetition: number, over: Partial<ResultRow> = {}): ResultRow => ({
  v: 1,
  source: "run",
  spec: "s",
  specHash: "h",
  case: id,
  workload: "w",
  target: "t",
  engine: "s3",
  op: "get",
  params: {},
  repetition,
  warmup: false,
  ok: true,
  start: "2026-01-01T00:00:00.000Z",
  end: "2026-01-01T00:00:01.000Z",
  bytes: 1e8,
  ops: 10,
  seconds: 1,
  throughput: 1e8,
  iops: 10,
  ...over,
});
