/**
 * A case's figures from the values the accumulator folded in: statistics per metric, the medians of what
 * the client cost, the spread of dd's processes, and for an autotuned case the steps and the one point
 * chosen for it (docs/language.md, "Autotune").
 */
import { withTuned, type LatencyBound } from "../../engines/autotune.js";
import { METRICS, type Metric } from "../../rows/metric-names.js";
import { formatDuration } from "../../spec/units.js";
import { BEHIND_SCHEDULE_RULE } from "../../rows/schedule.js";
import { median, statWarnings, summarize } from "../../rows/stats.js";
import type { ResultRow } from "../../rows/row.js";
import type { AutotuneResult, AutotuneRound, CaseFigures, PlanCase } from "./types.js";

/**
 * Per-repetition values besides the metrics, of which the report shows the median: the client's CPU-seconds
 * per GiB moved and the event-loop utilization of its busiest thread, and the time to first byte of reads.
 * And the throughput of each process of a repetition that ran several (dd's `parallel`), of which the
 * report shows the spread.
 */
export const EXTRAS = [
  "cpuPerGiB",
  "eventLoopUtilization",
  "ttfbP50",
  "ttfbP99",
  "processThroughput",
  "boundMet",
  "boundChoice",
] as const;
export type Extra = (typeof EXTRAS)[number];

/** The values of one group of repetitions: a case's, or those of one step of an autotuned case. */
export interface Values {
  ok: number;
  /** Every metric's list exists from the start (one object shape for all cases: faster per row). */
  values: Record<Metric, number[]>;
  /** Likewise, the values of EXTRAS (only where a repetition reported them). */
  extra: Record<Extra, number[]>;
}

export const newValues = (): Values => ({
  ok: 0,
  values: { throughput: [], iops: [], latency: [], p50: [], p90: [], p99: [], "p99.9": [], seconds: [] },
  extra: {
    cpuPerGiB: [],
    eventLoopUtilization: [],
    ttfbP50: [],
    ttfbP99: [],
    processThroughput: [],
    boundMet: [],
    boundChoice: [],
  },
});

/** The lists of a group's values, in METRICS then EXTRAS order (the order of a partial). */
export const listsOf = (values: Values): number[][] => [
  ...METRICS.map((metric) => values.values[metric]),
  ...EXTRAS.map((extra) => values.extra[extra]),
];

/** What the accumulator keeps of one case. */
export interface CaseAcc {
  info: PlanCase;
  /** Measured rows, less those a later row of the same repetition superseded (a retried failure). */
  measured: number;
  /** The failed repetitions no later row superseded (yet), with the error of each. */
  failures: Map<number, string>;
  /** Every repetition with a measured row (for merging: its rows supersede earlier failures). */
  repetitions: Set<number>;
  steadyAttained: number;
  steadyTotal: number;
  /** Open-loop repetitions whose client did not keep the schedule (rows/schedule.ts). */
  behindSchedule: number;
  /** Keyed by the value of the autotuned parameter (NaN when the case is not autotuned). */
  groups: Map<number, Values>;
  /** Drawn sizes: per size class (its key in rows' bySize), over the successful repetitions. */
  sizes: Map<number, SizeClassAcc>;
  tunedParam?: string;
}

/** One size class of a case: counts summed, and each repetition's p50 and p99 (of which figures are medians). */
export interface SizeClassAcc {
  ops: number;
  bytes: number;
  errors: number;
  p50: number[];
  p99: number[];
}

/** A successful row's size classes into its case's. */
export function addSizeClasses(acc: CaseAcc, bySize: NonNullable<ResultRow["bySize"]>): void {
  for (const [key, part] of Object.entries(bySize))
    mergeSizeClass(acc, Number(key), {
      ops: part.ops,
      bytes: part.bytes,
      errors: part.errors,
      p50: part.latency?.p50 !== undefined ? [part.latency.p50] : [],
      p99: part.latency?.p99 !== undefined ? [part.latency.p99] : [],
    });
}

export function mergeSizeClass(acc: CaseAcc, size: number, part: SizeClassAcc): void {
  const into = acc.sizes.get(size);
  if (!into) {
    acc.sizes.set(size, { ...part, p50: [...part.p50], p99: [...part.p99] });
    return;
  }
  into.ops += part.ops;
  into.bytes += part.bytes;
  into.errors += part.errors;
  into.p50.push(...part.p50);
  into.p99.push(...part.p99);
}

/** The parameter a case's autotune tunes, if it has one. */
export function tunedParamOf(info: PlanCase): string | undefined {
  const autotune = info.params.autotune as { param?: unknown } | undefined;
  return autotune && typeof autotune.param === "string" ? autotune.param : undefined;
}

export function newCase(info: PlanCase): CaseAcc {
  const tunedParam = tunedParamOf(info);
  return {
    info,
    measured: 0,
    repetitions: new Set(),
    failures: new Map(),
    steadyAttained: 0,
    steadyTotal: 0,
    behindSchedule: 0,
    groups: new Map(),
    sizes: new Map(),
    ...(tunedParam !== undefined && { tunedParam }),
  };
}

/** The figures of a case from its values alone (hosts and telemetry are the model's to add). */
export function caseFigures(acc: CaseAcc): CaseFigures {
  const warnings: string[] = [];
  const stepKeys = [...acc.groups.keys()].filter((k) => !Number.isNaN(k)).sort((a, b) => a - b);
  let autotune: AutotuneResult | undefined;
  let chosen: Values | undefined;
  const bound = acc.tunedParam ? boundOf(acc.info) : undefined;
  if (acc.tunedParam && bound && stepKeys.length > 0) {
    autotune = autotuneOf(acc, stepKeys, bound);
    chosen = acc.groups.get(NaN);
    const limit = `${bound.metric} ≤ ${formatDuration(bound.atMost)}`;
    warnings.push(
      autotune.knee === undefined
        ? `autotune: no ${acc.tunedParam} met ${limit} in most repetitions; statistics of each repetition's chosen round (its first when none met)`
        : `autotune: statistics of each repetition's highest ${acc.tunedParam} with ${limit} (their lower median: ${autotune.knee})`,
    );
  } else if (acc.tunedParam && stepKeys.length >= 2) {
    autotune = autotuneOf(acc, stepKeys, undefined);
    chosen = acc.groups.get(autotune.knee ?? stepKeys[stepKeys.length - 1]!);
    warnings.push(`autotune: statistics of the chosen round (${acc.tunedParam} = ${autotune.knee})`);
  } else {
    chosen = mergeValues([...acc.groups.values()]);
  }
  const { metrics, samples } = metricsOf(chosen);
  // Throughput and IOPS vary together; one set of warnings says it.
  if (metrics.throughput) warnings.push(...statWarnings(metrics.throughput, "throughput"));
  else if (metrics.iops) warnings.push(...statWarnings(metrics.iops, "iops"));
  if (acc.steadyTotal > acc.steadyAttained) warnings.push("steady state not attained within the duration");
  if (acc.behindSchedule > 0)
    warnings.push(
      `behind schedule in ${acc.behindSchedule} of ${acc.measured} repetitions: operations ${BEHIND_SCHEDULE_RULE} asked — too few in flight (concurrency) or a busy client; the latencies include their wait to start`,
    );
  return {
    id: acc.info.id,
    workload: acc.info.workload,
    target: acc.info.target,
    engine: acc.info.engine,
    op: acc.info.op,
    // Tables and sweep charts show the value the autotune chose, not the plan's starting value.
    params:
      autotune?.knee !== undefined
        ? withTuned(acc.info.params, autotune.param, autotune.knee)
        : acc.info.params,
    repetitions: acc.measured,
    failed: acc.failures.size,
    errors: [...new Set(acc.failures.values())],
    metrics,
    samples,
    ...extrasOf(chosen),
    warnings: [...new Set(warnings)],
    ...(acc.steadyTotal > 0 && { steady: { attained: acc.steadyAttained, total: acc.steadyTotal } }),
    ...(autotune && { autotune }),
    ...(acc.sizes.size > 0 && { bySize: sizeClassesOf(acc.sizes) }),
  };
}

/** The size classes in size order; latency as the medians over the repetitions of each one's p50 and p99. */
function sizeClassesOf(sizes: Map<number, SizeClassAcc>): NonNullable<CaseFigures["bySize"]> {
  return [...sizes.entries()]
    .sort(([a], [b]) => a - b)
    .map(([size, part]) => ({
      size,
      ops: part.ops,
      bytes: part.bytes,
      errors: part.errors,
      ...(part.p50.length > 0 && { p50: median(part.p50) }),
      ...(part.p99.length > 0 && { p99: median(part.p99) }),
    }));
}

function metricsOf(values: Values | undefined): Pick<CaseFigures, "metrics" | "samples"> {
  const metrics: CaseFigures["metrics"] = {};
  const samples: CaseFigures["samples"] = {};
  if (!values) return { metrics, samples };
  for (const metric of METRICS) {
    const list = values.values[metric];
    // A metric counts only when every successful repetition reported it.
    if (list.length === 0 || list.length !== values.ok) continue;
    const stats = summarize(list);
    if (!stats) continue;
    metrics[metric] = stats;
    samples[metric] = list;
  }
  return { metrics, samples };
}

const medianOrNone = (list: readonly number[]) => (list.length > 0 ? median(list) : undefined);

/**
 * The medians over the repetitions of what the client cost and of the time to first byte; the spread of
 * the processes' throughputs.
 */
function extrasOf(values: Values | undefined): Pick<CaseFigures, "client" | "ttfb" | "processes"> {
  if (!values) return {};
  const processes = summarize(values.extra.processThroughput);
  const sorted = Float64Array.from(values.extra.processThroughput).sort();
  const cpuPerGiB = medianOrNone(values.extra.cpuPerGiB);
  const eventLoopUtilization = medianOrNone(values.extra.eventLoopUtilization);
  const p50 = medianOrNone(values.extra.ttfbP50);
  const p99 = medianOrNone(values.extra.ttfbP99);
  return {
    ...((cpuPerGiB !== undefined || eventLoopUtilization !== undefined) && {
      client: {
        ...(cpuPerGiB !== undefined && { cpuPerGiB }),
        ...(eventLoopUtilization !== undefined && { eventLoopUtilization }),
      },
    }),
    ...((p50 !== undefined || p99 !== undefined) && {
      ttfb: { ...(p50 !== undefined && { p50 }), ...(p99 !== undefined && { p99 }) },
    }),
    ...(processes && {
      processes: {
        ...processes,
        q1: quantile(sorted, 0.25),
        q3: quantile(sorted, 0.75),
      },
    }),
  };
}

/** The q-quantile of sorted values, interpolated between the nearest two. */
function quantile(sorted: Float64Array, q: number): number {
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)]!;
  return below + (sorted[Math.ceil(at)]! - below) * (at - Math.floor(at));
}

function mergeValues(list: Values[]): Values | undefined {
  if (list.length <= 1) return list[0];
  const merged = newValues();
  for (const v of list) {
    merged.ok += v.ok;
    for (const metric of METRICS) for (const x of v.values[metric]) merged.values[metric].push(x);
    for (const extra of EXTRAS) for (const x of v.extra[extra]) merged.extra[extra].push(x);
  }
  return merged;
}

/** A case's autotune bound, if it tunes by the bound rule. */
function boundOf(info: PlanCase): LatencyBound | undefined {
  const autotune = info.params.autotune as { bound?: LatencyBound } | undefined;
  return autotune?.bound;
}

/**
 * Every step of an autotuned case over all its repetitions, and the one value chosen for the case: each
 * repetition ramps on its own, so the steps are pooled by the tuned parameter's value, and the rule each
 * repetition applies to its own rounds is applied once to the steps' medians. The gain rule: the step before
 * the first whose median gained less than `stopWhenGainBelow` over the step before it (the last step when
 * every one gained enough). The bound rule: the lower median of the repetitions' own answers (the highest
 * value each found within the bound; none when most found none); its steps are pooled for the curve only,
 * a step meeting the bound when the median of its bound figure is within it and at least half its rounds
 * met it (a round whose client fell behind its schedule did not).
 */
function autotuneOf(acc: CaseAcc, keys: number[], bound: LatencyBound | undefined): AutotuneResult {
  const rounds: AutotuneRound[] = keys.map((value) => {
    const v = acc.groups.get(value)!;
    const summary = (metric: Metric) => {
      const values = v.values[metric];
      const stats = values.length > 0 && values.length === v.ok ? summarize(values) : undefined;
      return stats && { median: stats.median, mean: stats.mean, ...(stats.ci95 && { ci95: stats.ci95 }) };
    };
    const throughput = summary("throughput");
    const iops = summary("iops");
    const figure = bound && summary(bound.metric);
    const metShare =
      bound && v.extra.boundMet.reduce((sum, x) => sum + x, 0) / Math.max(1, v.extra.boundMet.length);
    return {
      value,
      n: v.ok,
      ...(throughput && { throughput }),
      ...(iops && { iops }),
      ...(bound && {
        bound: figure,
        met: figure !== undefined && figure.median <= bound.atMost && metShare! >= 0.5,
      }),
    };
  });
  if (bound) {
    // Bisection makes repetitions try different values near the bound, so steps pooled by value are few
    // per value; each repetition's own answer is the measurement, and the case's is their lower median
    // (a value one of them chose; of two middle ones, the lower promises less).
    const choices = [...(acc.groups.get(NaN)?.extra.boundChoice ?? [])].sort((a, b) => a - b);
    const knee = choices[Math.floor((choices.length - 1) / 2)];
    return { param: acc.tunedParam!, bound, rounds, ...(knee !== undefined && knee > 0 && { knee }) };
  }
  const config = acc.info.params.autotune as { stopWhenGainBelow?: number };
  const threshold = (config.stopWhenGainBelow ?? 0) / 100;
  let knee: number | undefined;
  for (let i = 1; i < rounds.length; i += 1) {
    const before = rounds[i - 1]!.throughput?.median ?? rounds[i - 1]!.iops?.median;
    const now = rounds[i]!.throughput?.median ?? rounds[i]!.iops?.median;
    if (before === undefined || now === undefined || before <= 0) continue;
    rounds[i]!.gain = now / before - 1;
    if (knee === undefined && rounds[i]!.gain! < threshold) knee = rounds[i - 1]!.value;
  }
  return {
    param: acc.tunedParam!,
    stopWhenGainBelow: threshold,
    rounds,
    knee: knee ?? rounds[rounds.length - 1]!.value,
  };
}
