/**
 * Rows of workloads in rounds, packed for another thread and unpacked: in their order, each as the model
 * reads it — the usual shape as numbers, any other whole.
 */
import { describe, expect, it } from "vitest";
import { packRoundRows, unpackRoundRows } from "../../src/results/model/round-rows.js";
import type { RowLike } from "../../src/results/model/accumulator.js";

const params = { bs: 4096, iodepth: 32 };
const row = (over: Partial<RowLike> & Record<string, unknown> = {}): RowLike =>
  ({
    v: 1,
    source: "run",
    spec: "s",
    specHash: "h",
    case: "iops.disk1.bs-4KiB",
    workload: "iops",
    target: "disk1",
    engine: "fio",
    op: "randrw",
    params,
    repetition: 1,
    warmup: false,
    ok: true,
    start: "2026-01-01T00:00:00.000Z",
    end: "2026-01-01T00:00:02.000Z",
    bytes: 8192,
    ops: 2,
    seconds: 2,
    throughput: 4096,
    iops: 1,
    latency: { mean: 0.001, p50: 0.0009, p90: 0.002, p99: 0.003, "p99.9": 0.004 },
    ...over,
  }) as RowLike;

/** The fields the model reads of a row in rounds. */
const read = (r: RowLike) => ({
  case: r.case,
  workload: r.workload,
  target: r.target,
  engine: r.engine,
  op: r.op,
  params: r.params,
  source: r.source,
  spec: r.spec,
  specHash: r.specHash,
  repetition: r.repetition,
  warmup: r.warmup === true,
  ok: r.ok,
  error: r.error,
  seconds: r.seconds,
  throughput: r.throughput,
  iops: r.iops,
  latency: r.latency,
  hosts: r.hosts,
  jobs: r.jobs,
});

describe("round rows packed for another thread", () => {
  it("come back in their order, each with what the model reads; the unusual ones whole", () => {
    const failed = row({ repetition: 3, ok: false, error: "fio exited 1" });
    const withJobs = row({ repetition: 4, jobs: [{ throughput: 1, iops: 1, seconds: 1 }] } as never);
    const rows = [
      row(),
      row({ repetition: 2, latency: { p50: 0.5, p99: 0.7 } }),
      failed,
      withJobs,
      row({ repetition: 5, latency: undefined }),
      // Another case, then the first again with params of its own (parsed whole): a second identity.
      row({ case: "iops.disk2.bs-4KiB", target: "disk2", repetition: 1 }),
      row({ repetition: 6, params: { ...params } }),
      row({ repetition: 7, throughput: 0, iops: 0 }),
    ];
    const packed = packRoundRows(rows);
    expect([...packed.packed]).toEqual([1, 1, 0, 0, 1, 1, 1, 1]);
    // disk1's, disk2's, disk1's with its own params, and disk1's again (a case's identity is its last row's).
    expect(packed.identities).toHaveLength(4);
    expect(packed.whole).toEqual([failed, withJobs]);
    // What another thread receives: a structured clone, its buffers transferred.
    const received = structuredClone(packed, {
      transfer: [packed.packed.buffer as ArrayBuffer, packed.numbers.buffer as ArrayBuffer],
    });
    const back = unpackRoundRows(received);
    expect(back.map((r) => read(r as RowLike))).toEqual(rows.map(read));
    expect(back[2]).toEqual(failed);
    expect((back[1] as RowLike).latency).toEqual({ p50: 0.5, p99: 0.7 });
    expect((back[4] as RowLike).latency).toBeUndefined();
  });

  it("pack nothing from nothing", () => {
    expect(unpackRoundRows(packRoundRows([]))).toEqual([]);
  });
});
