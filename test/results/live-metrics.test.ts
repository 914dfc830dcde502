import { describe, expect, it } from "vitest";
import { LATENCY_BUCKETS, LiveMetrics } from "../../src/results/live-metrics.js";
import { encodeSeconds } from "../../src/rows/histogram.js";
import type { ResultRow } from "../../src/rows/row.js";
import { objectRow } from "../support/rows.js";

const labels = { case: 'w"1\\x\ny', workload: "w", target: "t", engine: "s3", op: "put" };

/** The value of the one line that starts with `prefix`. */
const valueOf = (text: string, prefix: string) => {
  const lines = text.split("\n").filter((line) => line.startsWith(prefix));
  expect(lines, prefix).toHaveLength(1);
  return Number(lines[0]!.slice(lines[0]!.lastIndexOf(" ") + 1));
};

describe("live metrics", () => {
  it("says the running case's repetition, and the round of a workload in rounds until another workload runs", () => {
    const metrics = new LiveMetrics("here");
    const running = (text: string, name: string) =>
      text.split("\n").filter((line) => line.startsWith(`${name}{`));
    metrics.caseStart(labels, 2);
    expect(running(metrics.render(), "benchspec_repetition")).toEqual([]);
    expect(running(metrics.render(), "benchspec_case_running")).toEqual([
      'benchspec_case_running{case="w\\"1\\\\x\\ny",workload="w",target="t",engine="s3",op="put"} 1',
    ]);
    expect(metrics.render()).toMatch(/^benchspec_cases 2$/m);
    metrics.repetitionStart(1, true);
    expect(running(metrics.render(), "benchspec_repetition")).toEqual([
      'benchspec_repetition{case="w\\"1\\\\x\\ny",workload="w",target="t",engine="s3",op="put",warmup="true"} 1',
    ]);
    metrics.roundStart("w", 4, 25);
    metrics.repetitionStart(4, false);
    let text = metrics.render();
    expect(running(text, "benchspec_repetition")[0]).toMatch(/warmup="false"\} 4$/);
    expect(running(text, "benchspec_round")).toEqual(['benchspec_round{workload="w"} 4']);
    expect(running(text, "benchspec_rounds_max")).toEqual(['benchspec_rounds_max{workload="w"} 25']);
    // The round's next case keeps it; a case of another workload ends it, and a finished case has no repetition.
    metrics.caseDone();
    metrics.caseStart({ ...labels, case: "other" }, 2);
    expect(running(metrics.render(), "benchspec_round")).toHaveLength(1);
    metrics.caseStart({ ...labels, workload: "v" }, 2);
    text = metrics.render();
    expect(running(text, "benchspec_round")).toEqual([]);
    expect(running(text, "benchspec_repetition")).toEqual([]);
  });

  it("counts measured repetitions per host, escapes label values, and keeps cumulative buckets", () => {
    let now = 0;
    const metrics = new LiveMetrics("here", () => now);
    metrics.caseStart(labels, 4);
    const latencies = [0.001, 0.002, 0.004, 0.5];
    const row = (over: Partial<ResultRow>): ResultRow => ({
      ...objectRow("c", 1),
      ops: 4,
      bytes: 400,
      histograms: { latency: encodeSeconds(latencies) },
      ...over,
    });
    metrics.repetitionDone(labels, row({ warmup: true }));
    metrics.repetitionDone(labels, row({}));
    metrics.repetitionDone(labels, row({ repetition: 2, ok: false, error: "x" }));
    metrics.repetitionDone(
      labels,
      row({
        repetition: 3,
        hosts: [
          { ...row({}), host: "h1", ops: 1, bytes: 10, histograms: { latency: encodeSeconds([0.001]) } },
          { ...row({}), host: "h2", ops: 2, bytes: 20 },
        ],
      }),
    );
    now = 10_000;
    metrics.caseDone();
    const text = metrics.render();
    const here = 'case="w\\"1\\\\x\\ny",workload="w",target="t",engine="s3",op="put",host="here"';
    // The warm-up counts nowhere; the failed repetition only as failed.
    expect(valueOf(text, `benchspec_operations_total{${here}}`)).toBe(4);
    expect(valueOf(text, `benchspec_bytes_total{${here}}`)).toBe(400);
    expect(valueOf(text, `benchspec_repetitions_total{${here},result="failed"}`)).toBe(1);
    expect(valueOf(text, `benchspec_operations_total{${here.replace("here", "h2")}}`)).toBe(2);
    expect(valueOf(text, `benchspec_latency_seconds_count{${here}}`)).toBe(4);
    expect(valueOf(text, `benchspec_latency_seconds_sum{${here}}`)).toBeCloseTo(0.507, 3);
    // Cumulative: the bucket at 2.048 ms holds 0.001 and 0.002, the one at 0.5243 s all four.
    const bucket = (le: number) => valueOf(text, `benchspec_latency_seconds_bucket{${here},le="${le}"}`);
    expect(LATENCY_BUCKETS).toContain(0.002048);
    expect(bucket(0.002048)).toBe(2);
    expect(bucket(0.5243)).toBe(4);
    expect(valueOf(text, `benchspec_latency_seconds_bucket{${here},le="+Inf"}`)).toBe(4);
    expect(valueOf(text, "benchspec_cases_done_total")).toBe(1);
    expect(valueOf(text, "benchspec_eta_seconds")).toBe(30);
    expect(text).not.toContain("benchspec_case_running{");
  });
});
