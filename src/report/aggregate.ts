/**
 * Aggregation before charting: rows and series points are folded in as they stream past, and only per
 * case values (numbers) are kept. finish() turns them into statistics (results/stats.ts), expect results
 * (results/summary.ts) and downsampled series, so what reaches the charts and the page does not grow with
 * the number of rows.
 */
import type { PlannedExpect } from "../plan/types.js";
import type { ResultRow, TimeseriesRow } from "../results/row.js";
import { evaluateExpectations, type CaseSummary, type ExpectResult } from "../results/summary.js";
import { median, statWarnings, summarize } from "../results/stats.js";
import { METRICS, type Metric } from "../spec/metrics.js";
import type { NicLimit } from "../telemetry/verdict.js";
import { HostAccumulator, type HostsPartial } from "./hosts.js";
import type {
  AutotuneResult,
  AutotuneRound,
  CaseAgg,
  PlanCase,
  RepetitionSeries,
  SeriesAgg,
  SeriesPoint,
} from "./model.js";
import { RepetitionStarts, type StartsPartial } from "./starts.js";
import { TelemetryAccumulator, type TelemetryPartial } from "./telemetry.js";

/**
 * The fields of a result row the report reads (benchspec rows, shell rows and imported fio rows alike);
 * where it came from is optional: rows made in memory may not say.
 */
export type RowLike = Pick<
  ResultRow,
  | "case"
  | "workload"
  | "target"
  | "engine"
  | "op"
  | "params"
  | "repetition"
  | "warmup"
  | "ok"
  | "error"
  | "seconds"
  | "throughput"
  | "iops"
  | "latency"
  | "ttfb"
  | "client"
  | "steady"
  | "autotune"
  | "jobs"
  | "telemetry"
> &
  Partial<Pick<ResultRow, "source" | "spec" | "specHash" | "hosts" | "targets" | "startSpread" | "start">>;

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
] as const;
export type Extra = (typeof EXTRAS)[number];

/** Downsampled series keep at most this many points per case. */
export const SERIES_BINS = 300;

/** A case known only from its rows (not in a plan). */
export const planCaseOf = (row: RowLike): PlanCase => ({
  id: row.case,
  workload: row.workload,
  target: row.target,
  engine: row.engine,
  op: row.op,
  params: row.params,
});

interface Values {
  ok: number;
  /** Every metric's list exists from the start (one object shape for all cases: faster per row). */
  values: Record<Metric, number[]>;
  /** Likewise, the values of EXTRAS (only where a repetition reported them). */
  extra: Record<Extra, number[]>;
}

const newValues = (): Values => ({
  ok: 0,
  values: { throughput: [], iops: [], latency: [], p50: [], p90: [], p99: [], "p99.9": [], seconds: [] },
  extra: { cpuPerGiB: [], eventLoopUtilization: [], ttfbP50: [], ttfbP99: [], processThroughput: [] },
});

function push(list: number[], value: number | undefined) {
  if (value !== undefined && Number.isFinite(value)) list.push(value);
}

function roundValues(acc: CaseAcc, key: number): Values {
  let values = acc.rounds.get(key);
  if (!values) {
    values = newValues();
    acc.rounds.set(key, values);
  }
  return values;
}

interface CaseAcc {
  info: PlanCase;
  /** Measured rows, less those a later row of the same repetition superseded (a retried failure). */
  measured: number;
  /** The failed repetitions no later row superseded (yet), with the error of each. */
  failures: Map<number, string>;
  /** Every repetition with a measured row (for merging: its rows supersede earlier failures). */
  repetitions: Set<number>;
  steadyAttained: number;
  steadyTotal: number;
  /** Keyed by the value of the autotuned parameter (NaN when the case is not autotuned). */
  rounds: Map<number, Values>;
  tunedParam?: string;
}

interface SeriesAcc {
  case: string;
  /** A host's own points (a case run on several hosts); without, the case's summed ones. */
  host?: string;
  t: number[];
  throughput: number[];
  iops: number[];
  /** Per point: repetition × 1024 + segment (the how-manieth series of that repetition number). */
  keys: number[];
  /** Per repetition: the last t and how many times t went backwards (a new repetition's series). */
  segments: Map<number, { lastT: number; segment: number }>;
}

/**
 * What a RunAccumulator folded in from rows, as flat data for another thread: a few numbers and strings,
 * and two Float64Arrays (whose buffers are transferred) instead of an object per case and an array per
 * value list — cloning 10,000 cases' worth of small objects and arrays cost seconds.
 *
 * `layout` holds, per case with measured rows (in the accumulator's order):
 *   its index in the accumulator's plan cases (-1: not from the plan, its info is the next of `infos`),
 *   measured, steadyAttained, steadyTotal, then how many repetitions (with a measured row: they supersede
 *   failures of the rows before), failures and rounds, then the repetitions, the failed repetitions (whose
 *   errors are the next of `errors`, in the failures' order) and per round (in the order they were first
 *   seen) its key, ok, and the length of each of its value lists (METRICS then EXTRAS order), whose values
 *   follow one another in `values`.
 */
export interface AccumulatorPartial {
  rowsTotal: number;
  rowsWarmup: number;
  rowsFailed: number;
  sources: string[];
  /** How many cases `layout` holds. */
  cases: number;
  layout: Float64Array;
  values: Float64Array;
  infos: PlanCase[];
  errors: string[];
  /** The hosts of rows run on several hosts at once (absent when there were none). */
  hosts?: HostsPartial;
  /** The telemetry of the rows, per case and host (absent when they had none). */
  telemetry?: TelemetryPartial;
  /** The measured repetitions' start instants (absent when no row had one). */
  starts?: StartsPartial;
}

const CASE_HEADER = 7;
const LISTS = METRICS.length + EXTRAS.length;
const ROUND_SIZE = 2 + LISTS;

/** The lists of a round's values, in METRICS then EXTRAS order (the order of a partial). */
const listsOf = (values: Values): number[][] => [
  ...METRICS.map((metric) => values.values[metric]),
  ...EXTRAS.map((extra) => values.extra[extra]),
];

/** The cases of a partial, each with its info and where its part of the layout starts. */
function* partialCases(
  partial: AccumulatorPartial,
  planCases: readonly PlanCase[],
): Generator<{ info: PlanCase; at: number }> {
  const { layout } = partial;
  let infos = 0;
  for (let c = 0, at = 0; c < partial.cases; c += 1) {
    const index = layout[at]!;
    const info = index >= 0 ? planCases[index] : partial.infos[infos++];
    if (!info) throw new Error(`a partial's case ${c} has no info (plan case ${index})`);
    yield { info, at };
    at += CASE_HEADER + layout[at + 4]! + layout[at + 5]! + layout[at + 6]! * ROUND_SIZE;
  }
}

export class RunAccumulator {
  private readonly cases = new Map<string, CaseAcc>();
  /** Keyed by case id, or case id and host (seriesKey). */
  private readonly series = new Map<string, SeriesAcc>();
  private readonly hosts = new HostAccumulator();
  private readonly telemetry = new TelemetryAccumulator();
  private readonly starts = new RepetitionStarts();
  rowsTotal = 0;
  rowsWarmup = 0;
  rowsFailed = 0;
  readonly sources = new Set<string>();

  /**
   * Cases of the plan, in plan order (rows for unknown cases are added after them). Partials given to
   * merge() must come from accumulators made with the same plan cases: they refer to them by index.
   */
  constructor(private readonly planCases: readonly PlanCase[] = []) {
    for (const c of planCases) this.cases.set(c.id, newCase(c));
  }

  addRow(row: RowLike): void {
    this.rowsTotal += 1;
    if (row.source) this.sources.add(row.source);
    if (row.warmup) {
      this.rowsWarmup += 1;
      return;
    }
    let acc = this.cases.get(row.case);
    if (!acc) {
      acc = newCase(planCaseOf(row));
      this.cases.set(row.case, acc);
    }
    // A repetition that failed and was run again (--resume) counts as its last row only; results.ndjson is
    // append-only, so the failed row stays in the file.
    if (acc.failures.delete(row.repetition)) acc.measured -= 1;
    acc.measured += 1;
    acc.repetitions.add(row.repetition);
    this.starts.add(row.case, row.repetition, row.start);
    if (row.hosts || row.targets) this.hosts.add(row);
    if (!row.ok) {
      this.rowsFailed += 1;
      acc.failures.set(row.repetition, row.error ?? "failed");
      return;
    }
    if (row.telemetry || row.hosts) this.telemetry.add(row.case, row);
    if (row.steady) {
      acc.steadyTotal += 1;
      if (row.steady.attained) acc.steadyAttained += 1;
    }
    if (row.autotune) {
      for (const round of row.autotune.rounds) {
        const values = roundValues(acc, round.value);
        values.ok += 1;
        push(values.values.throughput, round.throughput);
        push(values.values.iops, round.iops);
        push(values.values.seconds, round.seconds);
      }
      return;
    }
    const tuned = acc.tunedParam !== undefined ? row.params[acc.tunedParam] : undefined;
    const values = roundValues(acc, typeof tuned === "number" ? tuned : NaN);
    values.ok += 1;
    // METRIC_INFO's accessors, unrolled: this runs once per row, and calls through the table take twice
    // as long (test/report/aggregate.test.ts checks that every metric is read as the table reads it).
    const v = values.values;
    push(v.throughput, row.throughput);
    push(v.iops, row.iops);
    push(v.seconds, row.seconds);
    const latency = row.latency;
    if (latency) {
      push(v.latency, latency.mean);
      push(v.p50, latency.p50);
      push(v.p90, latency.p90);
      push(v.p99, latency.p99);
      push(v["p99.9"], latency["p99.9"]);
    }
    const client = row.client;
    if (client) {
      // No bytes moved (delete, stat, list): CPU per GiB is 0 by definition, not a measurement.
      if (client.cpuPerGiB !== undefined && client.cpuPerGiB > 0)
        push(values.extra.cpuPerGiB, client.cpuPerGiB);
      push(values.extra.eventLoopUtilization, client.eventLoopUtilization);
    }
    const ttfb = row.ttfb;
    if (ttfb) {
      push(values.extra.ttfbP50, ttfb.p50);
      push(values.extra.ttfbP99, ttfb.p99);
    }
    const jobs = row.jobs;
    if (jobs && jobs.length > 1)
      for (const job of jobs)
        if (job.error === undefined) push(values.extra.processThroughput, job.throughput);
  }

  /**
   * A series point. Timeseries rows carry no warm-up flag, and warm-up repetitions reuse the measured
   * repetitions' numbers: for a case with `warmup` w, the first series of repetitions 1…w (before t
   * starts again from 0) is the warm-up's, and is dropped. A case run on several hosts has each host's
   * points besides the summed ones: each host's are a series of their own.
   */
  addPoint(point: TimeseriesRow & { warmup?: boolean }): void {
    if (point.warmup) return;
    // A target's own points (a case over several targets at once) are a series of their own as a host's are.
    const part = point.host ?? point.target;
    const key = part === undefined ? point.case : seriesKey(point.case, part);
    let s = this.series.get(key);
    if (!s) {
      s = {
        case: point.case,
        ...(part !== undefined && { host: part }),
        t: [],
        throughput: [],
        iops: [],
        keys: [],
        segments: new Map(),
      };
      this.series.set(key, s);
    }
    let seg = s.segments.get(point.repetition);
    if (!seg) {
      seg = { lastT: -Infinity, segment: 0 };
      s.segments.set(point.repetition, seg);
    }
    if (point.t < seg.lastT) seg.segment += 1;
    seg.lastT = point.t;
    s.t.push(point.t);
    // fio writes bandwidth and IOPS logs with timestamps a millisecond apart, which the series merge keeps
    // as two points, each with the other metric at 0. A point with IOPS but no bytes (or bytes but no
    // IOPS) cannot be a measurement: it is that artefact, and its zero is not a sample.
    const artefactThroughput = point.throughput === 0 && point.iops > 0;
    const artefactIops = point.iops === 0 && point.throughput > 0;
    s.throughput.push(artefactThroughput ? NaN : point.throughput);
    s.iops.push(artefactIops ? NaN : point.iops);
    s.keys.push(point.repetition * 1024 + seg.segment);
  }

  /**
   * The rows folded in so far, as flat data for another thread (series points are not part of it: a
   * series depends on the order of all its points). Only cases with measured rows are included; the
   * buffers of `layout` and `values` are to be transferred.
   */
  partial(): { partial: AccumulatorPartial; transfer: ArrayBuffer[] } {
    // The plan case each case's info is (the last of an id, as the constructor keeps it).
    const planIndex = new Map<string, number>();
    this.planCases.forEach((c, i) => planIndex.set(c.id, i));
    const layout: number[] = [];
    const infos: PlanCase[] = [];
    const errors: string[] = [];
    let count = 0;
    let size = 0;
    const lists: number[][] = [];
    for (const acc of this.cases.values()) {
      if (acc.measured === 0) continue;
      count += 1;
      const index = planIndex.get(acc.info.id);
      if (index !== undefined && this.planCases[index] === acc.info) layout.push(index);
      else {
        layout.push(-1);
        infos.push(acc.info);
      }
      layout.push(acc.measured, acc.steadyAttained, acc.steadyTotal);
      layout.push(acc.repetitions.size, acc.failures.size, acc.rounds.size);
      for (const repetition of acc.repetitions) layout.push(repetition);
      for (const [repetition, error] of acc.failures) {
        layout.push(repetition);
        errors.push(error);
      }
      for (const [key, v] of acc.rounds) {
        layout.push(key, v.ok);
        for (const list of listsOf(v)) {
          layout.push(list.length);
          lists.push(list);
          size += list.length;
        }
      }
    }
    const values = new Float64Array(size);
    let at = 0;
    for (const list of lists) for (let i = 0; i < list.length; i += 1) values[at++] = list[i]!;
    const flat = Float64Array.from(layout);
    const hosts = this.hosts.partial();
    const telemetry = this.telemetry.partial();
    const starts = this.starts.partial();
    const partial: AccumulatorPartial = {
      rowsTotal: this.rowsTotal,
      rowsWarmup: this.rowsWarmup,
      rowsFailed: this.rowsFailed,
      sources: [...this.sources],
      cases: count,
      layout: flat,
      values,
      infos,
      errors,
      ...(hosts && { hosts }),
      ...(telemetry && { telemetry }),
      ...(starts && { starts }),
    };
    return { partial, transfer: [flat.buffer, values.buffer] };
  }

  /**
   * False if `partials`, rows that follow those folded in here (in this order), cannot be merged into the
   * result of folding their rows in: a case not in the plan whose first rows in two partials disagree on
   * the autotuned parameter (their rows would be grouped by different rounds).
   */
  canMerge(partials: readonly AccumulatorPartial[]): boolean {
    const tuned = new Map<string, string | undefined>();
    for (const acc of this.cases.values()) tuned.set(acc.info.id, acc.tunedParam);
    for (const partial of partials) {
      for (const { info } of partialCases(partial, this.planCases)) {
        const tunedParam = tunedParamOf(info);
        if (!tuned.has(info.id)) tuned.set(info.id, tunedParam);
        else if (tuned.get(info.id) !== tunedParam) return false;
      }
    }
    return true;
  }

  /** Adds rows that follow those folded in so far, as another accumulator's partial() gave them. */
  merge(partial: AccumulatorPartial): void {
    this.rowsTotal += partial.rowsTotal;
    this.rowsWarmup += partial.rowsWarmup;
    this.rowsFailed += partial.rowsFailed;
    for (const source of partial.sources) this.sources.add(source);
    if (partial.hosts) this.hosts.merge(partial.hosts);
    if (partial.telemetry) this.telemetry.merge(partial.telemetry);
    if (partial.starts) this.starts.merge(partial.starts);
    const { layout, values } = partial;
    let errors = 0;
    let from = 0;
    for (const { info, at } of partialCases(partial, this.planCases)) {
      let acc = this.cases.get(info.id);
      if (!acc) {
        acc = newCase(info);
        this.cases.set(info.id, acc);
      }
      const [repetitions, failures, rounds] = [layout[at + 4]!, layout[at + 5]!, layout[at + 6]!];
      const reps = at + CASE_HEADER;
      for (let i = reps; i < reps + repetitions; i += 1)
        if (acc.failures.delete(layout[i]!)) acc.measured -= 1;
      acc.measured += layout[at + 1]!;
      for (let i = reps + repetitions; i < reps + repetitions + failures; i += 1)
        acc.failures.set(layout[i]!, partial.errors[errors++]!);
      for (let i = reps; i < reps + repetitions; i += 1) acc.repetitions.add(layout[i]!);
      acc.steadyAttained += layout[at + 2]!;
      acc.steadyTotal += layout[at + 3]!;
      for (let r = 0, round = reps + repetitions + failures; r < rounds; r += 1, round += ROUND_SIZE) {
        const v = roundValues(acc, layout[round]!);
        v.ok += layout[round + 1]!;
        listsOf(v).forEach((list, m) => {
          const to = from + layout[round + 2 + m]!;
          for (let i = from; i < to; i += 1) list.push(values[i]!);
          from = to;
        });
      }
    }
  }

  hasSeries(caseId: string): boolean {
    return this.series.has(caseId);
  }

  /** `nics`: the interfaces whose capacity the plan declares (summary.ts's nicLimits), for the verdicts. */
  finish(
    expect: readonly PlannedExpect[],
    nics: readonly NicLimit[] = [],
  ): {
    cases: CaseAgg[];
    expect: ExpectResult[];
    series: SeriesAgg[];
  } {
    const cases = [...this.cases.values()].map((acc) => {
      const c = finishCase(acc);
      const hosts = this.hosts.finish(acc.info.id);
      const telemetry = this.telemetry.finish(acc.info.id, nics);
      return { ...c, ...(hosts && { hosts }), ...(telemetry && { telemetry }) };
    });
    const summaries = cases as unknown as CaseSummary[];
    const series: SeriesAgg[] = [];
    for (const s of this.series.values()) {
      const acc = this.cases.get(s.case);
      const warmups = typeof acc?.info.params.warmup === "number" ? acc.info.params.warmup : 0;
      const sample = typeof acc?.info.params.sample === "number" ? acc.info.params.sample : undefined;
      const timeline =
        s.host === undefined ? repetitionSeries(s, warmups, this.starts.of(s.case)) : undefined;
      series.push({ ...downsample(s, warmups, sample), ...(timeline && { timeline }) });
    }
    return { cases, expect: evaluateExpectations(expect, summaries), series };
  }
}

/** A host's series of a case (case ids are file-name safe: none holds a NUL). */
const seriesKey = (caseId: string, host: string) => `${caseId}\u0000${host}`;

/** The parameter a case's autotune tunes, if it has one. */
function tunedParamOf(info: PlanCase): string | undefined {
  const autotune = info.params.autotune as { param?: unknown } | undefined;
  return autotune && typeof autotune.param === "string" ? autotune.param : undefined;
}

function newCase(info: PlanCase): CaseAcc {
  const tunedParam = tunedParamOf(info);
  return {
    info,
    measured: 0,
    repetitions: new Set(),
    failures: new Map(),
    steadyAttained: 0,
    steadyTotal: 0,
    rounds: new Map(),
    ...(tunedParam !== undefined && { tunedParam }),
  };
}

function metricsOf(values: Values | undefined): { metrics: CaseAgg["metrics"]; samples: CaseAgg["samples"] } {
  const metrics: CaseAgg["metrics"] = {};
  const samples: CaseAgg["samples"] = {};
  if (!values) return { metrics, samples };
  for (const metric of METRICS) {
    const list = values.values[metric];
    // As in summary.ts: a metric counts only when every successful repetition reported it.
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
function extrasOf(values: Values | undefined): Pick<CaseAgg, "client" | "ttfb" | "processes"> {
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

function finishCase(acc: CaseAcc): CaseAgg {
  const warnings: string[] = [];
  const roundKeys = [...acc.rounds.keys()].filter((k) => !Number.isNaN(k)).sort((a, b) => a - b);
  let autotune: AutotuneResult | undefined;
  let chosen: Values | undefined;
  if (acc.tunedParam && roundKeys.length >= 2) {
    autotune = autotuneOf(acc, roundKeys);
    chosen = acc.rounds.get(autotune.knee ?? roundKeys[roundKeys.length - 1]!);
    warnings.push(`autotune: statistics of the chosen round (${acc.tunedParam} = ${autotune.knee})`);
  } else {
    chosen = mergeValues([...acc.rounds.values()]);
  }
  const { metrics, samples } = metricsOf(chosen);
  if (metrics.throughput) warnings.push(...statWarnings(metrics.throughput, "throughput"));
  else if (metrics.iops) warnings.push(...statWarnings(metrics.iops, "iops"));
  if (acc.steadyTotal > acc.steadyAttained) warnings.push("steady state not attained within the duration");
  return {
    id: acc.info.id,
    workload: acc.info.workload,
    target: acc.info.target,
    engine: acc.info.engine,
    op: acc.info.op,
    // Tables and sweep charts show the value the autotune chose, not the plan's starting value.
    params: autotune ? { ...acc.info.params, [autotune.param]: autotune.knee } : acc.info.params,
    repetitions: acc.measured,
    failed: acc.failures.size,
    errors: [...new Set(acc.failures.values())],
    metrics,
    samples,
    ...extrasOf(chosen),
    warnings: [...new Set(warnings)],
    ...(acc.steadyTotal > 0 && { steady: { attained: acc.steadyAttained, total: acc.steadyTotal } }),
    ...(autotune && { autotune }),
  };
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

function autotuneOf(acc: CaseAcc, keys: number[]): AutotuneResult {
  const config = acc.info.params.autotune as { stopWhenGainBelow?: number };
  const threshold = (config.stopWhenGainBelow ?? 0) / 100;
  const rounds: AutotuneRound[] = keys.map((value) => {
    const v = acc.rounds.get(value)!;
    const summary = (metric: Metric) => {
      const values = v.values[metric];
      const stats = values.length > 0 && values.length === v.ok ? summarize(values) : undefined;
      return stats && { median: stats.median, mean: stats.mean, ...(stats.ci95 && { ci95: stats.ci95 }) };
    };
    const throughput = summary("throughput");
    const iops = summary("iops");
    return { value, n: v.ok, ...(throughput && { throughput }), ...(iops && { iops }) };
  });
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

/** Which series are warm-ups: segment 0 of repetitions 1…w that also have a segment 1. */
function warmupKeys(s: SeriesAcc, warmups: number): Set<number> {
  const dropped = new Set<number>();
  if (warmups > 0) {
    for (const [rep, seg] of s.segments) if (rep <= warmups && seg.segment > 0) dropped.add(rep * 1024);
  }
  return dropped;
}

/**
 * Each measured repetition's own points with its start instant, in the order they started (none when a
 * repetition's start is unknown: rows of older runs, imports).
 */
function repetitionSeries(
  s: SeriesAcc,
  warmups: number,
  starts: ReadonlyMap<number, number> | undefined,
): RepetitionSeries[] | undefined {
  if (!starts) return undefined;
  const dropped = warmupKeys(s, warmups);
  const byKey = new Map<number, RepetitionSeries>();
  for (let i = 0; i < s.t.length; i += 1) {
    const key = s.keys[i]!;
    if (dropped.has(key)) continue;
    let rep = byKey.get(key);
    if (!rep) {
      const repetition = Math.floor(key / 1024);
      const start = starts.get(repetition);
      if (start === undefined) return undefined;
      byKey.set(key, (rep = { repetition, start, points: [] }));
    }
    rep.points.push({ t: s.t[i]!, throughput: s.throughput[i]!, iops: s.iops[i]! });
  }
  return [...byKey.values()].sort((a, b) => a.start - b.start);
}

/** At most SERIES_BINS points: the mean of each time bin over all repetitions, with its min and max. */
function downsample(s: SeriesAcc, warmups: number, sample: number | undefined): SeriesAgg {
  const dropped = warmupKeys(s, warmups);
  const keys = s.keys;
  const reps = new Set<number>();
  let tMax = 0;
  let count = 0;
  for (let i = 0; i < s.t.length; i += 1) {
    if (dropped.has(keys[i]!)) continue;
    count += 1;
    reps.add(keys[i]!);
    if (s.t[i]! > tMax) tMax = s.t[i]!;
  }
  // Bins one sampling interval wide, centred on the sample instants, so the repetitions' samples (whose
  // timestamps jitter by a few ms) and fio's bandwidth/IOPS pairs meet in one bin; equal-width bins when
  // that would make more than SERIES_BINS.
  const perRep = count / Math.max(1, reps.size);
  const dt = sample && sample > 0 ? sample : tMax / Math.max(1, perRep);
  const exact = dt > 0 && tMax / dt + 1 <= SERIES_BINS;
  const binOf = exact
    ? (t: number) => Math.round(t / dt)
    : (t: number) => Math.min(SERIES_BINS - 1, Math.floor((t / (tMax || 1)) * SERIES_BINS));
  const bins = exact ? Math.round(tMax / dt) + 1 : SERIES_BINS;
  const acc = Array.from({ length: bins }, () => ({ t: 0, n: 0, tp: stat(), io: stat() }));
  for (let i = 0; i < s.t.length; i += 1) {
    if (dropped.has(keys[i]!)) continue;
    const bin = acc[binOf(s.t[i]!)]!;
    bin.t += s.t[i]!;
    bin.n += 1;
    add(bin.tp, s.throughput[i]!);
    add(bin.io, s.iops[i]!);
  }
  const points: SeriesPoint[] = [];
  for (const bin of acc) {
    if (bin.n === 0) continue;
    const point: SeriesPoint = { t: bin.t / bin.n };
    if (bin.tp.n > 0)
      Object.assign(point, {
        throughput: bin.tp.sum / bin.tp.n,
        throughputMin: bin.tp.min,
        throughputMax: bin.tp.max,
      });
    if (bin.io.n > 0)
      Object.assign(point, { iops: bin.io.sum / bin.io.n, iopsMin: bin.io.min, iopsMax: bin.io.max });
    points.push(point);
  }
  return {
    case: s.case,
    ...(s.host !== undefined && { host: s.host }),
    repetitions: reps.size,
    rawPoints: count,
    points,
  };
}

const stat = () => ({ n: 0, sum: 0, min: Infinity, max: -Infinity });
function add(s: ReturnType<typeof stat>, value: number) {
  if (!Number.isFinite(value)) return;
  s.n += 1;
  s.sum += value;
  if (value < s.min) s.min = value;
  if (value > s.max) s.max = value;
}
