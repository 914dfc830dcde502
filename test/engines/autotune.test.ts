/** Autotune's loop (engines/autotune.ts): the gain rule, the bound rule's ramp and bisection, and the rules in the language. */
import { describe, expect, it } from "vitest";
import { meetsBound, tune, withTuned, type TuneRule } from "../../src/engines/autotune.js";
import type { Measurement } from "../../src/rows/row.js";
import { autotuneRounds } from "../../src/emit/sdk-format.js";
import { compilePlan } from "../../src/compile/compile.js";
import { VERSION } from "../../src/cli/context.js";
import { diagnosticsOf, planOf } from "../support/spec.js";

/** A store whose p99 is 5 ms up to `knee` operations per second, and grows without bound above it. */
const store =
  (knee: number, log: number[] = []) =>
  async (value: number): Promise<Measurement> => {
    log.push(value);
    const p99 = value <= knee ? 0.005 : 0.005 + (value - knee) * 0.001;
    return {
      ok: true,
      start: "2026-01-01T00:00:00.000Z",
      end: "2026-01-01T00:00:01.000Z",
      bytes: value * 4096,
      ops: value,
      seconds: 1,
      throughput: Math.min(value, knee) * 4096,
      iops: Math.min(value, knee),
      latency: { mean: p99 / 2, p50: p99 / 2, p99 },
    };
  };

const signal = new AbortController().signal;
const bound = { metric: "p99" as const, atMost: 0.02 };

describe("autotune's bound rule", () => {
  it("ramps until the bound is missed, bisects to within the resolution, and chooses the highest value that met it", async () => {
    const log: number[] = [];
    const rule: TuneRule = { param: "rate", ramp: autotuneRounds(100, 2, 100_000), bound, resolution: 5 };
    const m = await tune(rule, store(1000, log), signal);
    // p99 ≤ 20 ms up to 1015/s: the ramp 100…1600 misses at 1600, then bisection between 800 and 1600.
    expect(log.slice(0, 5)).toEqual([100, 200, 400, 800, 1600]);
    const chosen = m.autotune!.chosen;
    const missed = Math.min(...m.autotune!.rounds.filter((r) => r.met === false).map((r) => r.value));
    expect(chosen).toBeLessThanOrEqual(1015);
    expect(missed).toBeGreaterThan(1015);
    expect(missed / chosen).toBeLessThanOrEqual(1.05);
    expect(m.iops).toBe(Math.min(chosen, 1000));
    expect(m.autotune!.bound).toEqual(bound);
    // Every round is kept in the order run, each saying whether it met the bound.
    expect(m.autotune!.rounds.map((r) => r.value)).toEqual(log);
    for (const r of m.autotune!.rounds) expect(r.met).toBe(r.value <= 1015);
  });

  it("bisects integers down to neighbours, and chooses the start when even it missed the bound", async () => {
    const m = await tune(
      { param: "concurrency", ramp: [1, 4, 16, 64], bound, resolution: 0.1 },
      store(6),
      signal,
    );
    expect(m.autotune!.chosen).toBe(6 + 15);
    const none = await tune({ param: "rate", ramp: [100, 200], bound }, store(10), signal);
    expect(none.autotune!.rounds.map((r) => [r.value, r.met])).toEqual([[100, false]]);
    expect(none.autotune!.chosen).toBe(100);
  });

  it("a round that failed, or whose client fell behind its schedule, does not meet the bound", () => {
    const ok: Measurement = {
      ok: true,
      start: "",
      end: "",
      bytes: 1,
      ops: 1,
      seconds: 1,
      throughput: 1,
      iops: 1,
      latency: { p99: 0.001 },
    };
    expect(meetsBound(ok, bound)).toBe(true);
    expect(meetsBound({ ...ok, ok: false }, bound)).toBe(false);
    expect(meetsBound({ ...ok, latency: {} }, bound)).toBe(false);
    const late = { p50: 0, p99: 0, max: 0 };
    expect(meetsBound({ ...ok, schedule: { rate: 100, scheduled: 100, achieved: 90, late } }, bound)).toBe(
      false,
    );
    expect(meetsBound({ ...ok, schedule: { rate: 100, scheduled: 100, achieved: 99, late } }, bound)).toBe(
      true,
    );
  });

  it("the gain rule keeps its knee: the round before the first that gained too little", async () => {
    const m = await tune(
      { param: "concurrency", ramp: [1, 2, 4, 8, 16], stopWhenGainBelow: 5 },
      store(3),
      signal,
    );
    expect(m.autotune!.rounds.map((r) => r.value)).toEqual([1, 2, 4, 8]);
    expect(m.autotune!.chosen).toBe(4);
    expect(m.autotune!.bound).toBeUndefined();
  });

  it("a tuned rate is operations per second in the case's parameters", () => {
    expect(withTuned({ rate: { bytesPerSecond: 1 }, concurrency: 4 }, "rate", 250)).toEqual({
      rate: { opsPerSecond: 250 },
      concurrency: 4,
    });
    expect(withTuned({ iodepth: 1 }, "iodepth", 8)).toEqual({ iodepth: 8 });
  });
});

const s3Spec = (autotune: object, extra: object = {}) => ({
  benchspec: 1,
  name: "knee",
  targets: { store: { kind: "s3", launch: "minio" } },
  workloads: [{ name: "w", op: "put", size: "4KiB", objects: 100, autotune, ...extra }],
});
const messages = (spec: object) =>
  diagnosticsOf(spec).map((d) => `${d.code} ${d.path?.join(".")}: ${d.message}`);
const rateTune = { param: "rate", start: 100, factor: 2, max: 10_000 };

describe("autotune's rules in the language", () => {
  it("takes a bound on a latency figure and a resolution, and compiles them into the call sequence", async () => {
    const plan = planOf(
      s3Spec(
        { ...rateTune, bound: { metric: "p99", atMost: "20ms" }, resolution: "5%" },
        { arrivals: "poisson" },
      ),
    );
    expect(plan.cases[0]!.params.autotune).toEqual({
      ...rateTune,
      bound: { metric: "p99", atMost: 0.02 },
      resolution: 5,
    });
    const { artifacts } = await compilePlan(plan, ["sdk"], VERSION);
    const sdk = JSON.parse(artifacts.find((a) => a.path.startsWith("sdk/"))!.content) as {
      repetitions: { measured: { autotune: unknown; rate: unknown; concurrency: number } }[];
    };
    const measured = sdk.repetitions[0]!.measured;
    expect(measured.autotune).toEqual({
      param: "rate",
      rounds: autotuneRounds(100, 2, 10_000),
      bound: { metric: "p99", atMost: 0.02 },
      resolution: 5,
    });
    expect(measured.rate).toEqual({ opsPerSecond: 100, arrivals: "poisson", seed: plan.cases[0]!.id });
  });

  it("refuses an autotune with no rule or two, a resolution without bound, a bound dd cannot measure, and rate beside a tuned rate", () => {
    expect(messages(s3Spec(rateTune))).toEqual([
      expect.stringMatching(/^missing-key workloads\.0\.autotune: autotune needs a rule to stop by/),
    ]);
    expect(
      messages(s3Spec({ ...rateTune, stopWhenGainBelow: "5%", bound: { metric: "p99", atMost: "20ms" } })),
    ).toEqual([
      expect.stringMatching(/^conflicting-keys workloads\.0\.autotune\.bound: .*exclude each other/),
    ]);
    expect(messages(s3Spec({ ...rateTune, stopWhenGainBelow: "5%", resolution: "5%" }))).toEqual([
      expect.stringMatching(/^param-not-applicable workloads\.0\.autotune\.resolution: .*set "bound" too/),
    ]);
    expect(messages(s3Spec({ ...rateTune, bound: { metric: "p99", atMost: "20ms" } }, { rate: 50 }))).toEqual(
      [expect.stringMatching(/^conflicting-keys workloads\.0\.rate: "rate" is what this autotune tunes/)],
    );
    const dd = {
      benchspec: 1,
      name: "dd",
      targets: { d: { kind: "fs", path: "/tmp" } },
      workloads: [
        {
          name: "f",
          engine: "dd",
          op: "write",
          autotune: {
            param: "parallel",
            start: 1,
            factor: 2,
            max: 4,
            bound: { metric: "p99", atMost: "1ms" },
          },
        },
      ],
    };
    expect(messages(dd)).toEqual([
      expect.stringMatching(
        /^metric-not-reported workloads\.0\.autotune\.bound\.metric: engine dd does not report p99/,
      ),
    ]);
    expect(messages(s3Spec({ ...rateTune, bound: { metric: "seconds", atMost: "1s" } }))).toEqual([
      expect.stringMatching(/^invalid-value workloads\.0\.autotune\.bound\.metric: /),
    ]);
  });
});
