/**
 * The run model: every figure of every case, decided once. Rows and series points are folded in as they
 * are measured (`benchspec run`) or stream past (report, compare, merge), and only per case values are
 * kept; figures() and finish() turn them into statistics, autotune steps, expectations, warnings,
 * telemetry verdicts, per-host figures and downsampled series. The console, summary.json, report.html,
 * compare and merge read these and compute none of them again.
 *
 * Which repetitions count: the last row of each case × repetition (results.ndjson is append-only, so a
 * failure run again by --resume stays in the file before its new row); warm-ups never; of a workload run
 * in rounds, only the rounds of its target's measurement window (its rows are kept until the window is
 * known: a few per case and round).
 */
import type { PlannedExpect, PlannedRounds } from "../../plan/types.js";
import { METRICS } from "../../rows/metric-names.js";
import { behindSchedule } from "../../rows/schedule.js";
import type { NicLimit } from "../../telemetry/verdict.js";
import { summarizeAllRounds, windowRows, type RoundsByWorkload } from "../rounds-summary.js";
import type { Latency, TimeseriesRow } from "../../rows/row.js";
import { evaluateExpectations, type ExpectResult } from "./expect.js";
import {
  addSizeClasses,
  caseFigures,
  EXTRAS,
  mergeSizeClass,
  listsOf,
  newCase,
  newValues,
  tunedParamOf,
  type CaseAcc,
  type SizeClassAcc,
  type Values,
} from "./figures.js";
import { HostAccumulator, type HostsPartial } from "./hosts.js";
import { SeriesAccumulator } from "./series.js";
import { RepetitionStarts, type StartsPartial } from "./starts.js";
import { packRoundRows, unpackRoundRows, type PackedRoundRows } from "./round-rows.js";
import { clientBoundWarnings, TelemetryAccumulator, type TelemetryPartial } from "./telemetry.js";
import type { CaseFigures, PlanCase, RowLike, SeriesAgg } from "./types.js";

export type { RowLike } from "./types.js";

/**
 * `series: false`: the cases' figures only (compare), without what places time series on a workload's
 * clock — each repetition's start, a Date.parse and a map entry per row, a sixth of a row's cost.
 */
export interface ModelOptions {
  series?: boolean;
}

/** What the model needs of a plan: its cases, and the criteria of the workloads run in rounds. */
export interface ModelPlan {
  cases: readonly PlanCase[];
  workloads?: Readonly<Record<string, { rounds?: PlannedRounds }>>;
}

/** A case known only from its rows (not in a plan). */
export const planCaseOf = (row: RowLike): PlanCase => ({
  id: row.case,
  workload: row.workload,
  target: row.target,
  engine: row.engine,
  op: row.op,
  params: row.params,
});

/** Everything the model decides for a run. */
export interface RunFigures {
  /** The plan's cases in plan order, then cases known only from their rows. */
  cases: CaseFigures[];
  expect: ExpectResult[];
  series: SeriesAgg[];
  /** Per workload run in rounds, per target: its rounds, steady-state verdict and measurement window. */
  rounds: RoundsByWorkload;
}

function push(list: number[], value: number | undefined) {
  if (value !== undefined && Number.isFinite(value)) list.push(value);
}

/**
 * What every measurement has (a row, an autotune step) into its group's lists: METRIC_INFO's accessors,
 * unrolled — this runs once per row, and calls through the table take twice as long
 * (test/report/aggregate.test.ts checks that every metric is read as the table reads it).
 */
function pushMeasured(
  v: Values["values"],
  m: { throughput: number; iops: number; seconds: number; latency?: Latency | undefined },
): void {
  push(v.throughput, m.throughput);
  push(v.iops, m.iops);
  push(v.seconds, m.seconds);
  const latency = m.latency;
  if (latency) {
    push(v.latency, latency.mean);
    push(v.p50, latency.p50);
    push(v.p90, latency.p90);
    push(v.p99, latency.p99);
    push(v["p99.9"], latency["p99.9"]);
  }
}

function groupValues(acc: CaseAcc, key: number): Values {
  let values = acc.groups.get(key);
  if (!values) {
    values = newValues();
    acc.groups.set(key, values);
  }
  return values;
}

/**
 * What a RunModel folded in from rows, as flat data for another thread: a few numbers and strings, and two
 * Float64Arrays (whose buffers are transferred) instead of an object per case and an array per value list —
 * cloning 10,000 cases' worth of small objects and arrays cost seconds.
 *
 * `layout` holds, per case with measured rows (in the model's order):
 *   its index in the model's plan cases (-1: not from the plan, its info is the next of `infos`),
 *   measured, steadyAttained, steadyTotal, behindSchedule, then how many repetitions (with a measured row: they supersede
 *   failures of the rows before), failures and groups, then the repetitions, the failed repetitions (whose
 *   errors are the next of `errors`, in the failures' order) and per group (in the order they were first
 *   seen) its key, ok, and the length of each of its value lists (METRICS then EXTRAS order), whose values
 *   follow one another in `values`.
 */
export interface ModelPartial {
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
  /** The measured rows of workloads run in rounds, kept until their window is known (round-rows.ts). */
  roundRows: PackedRoundRows;
  /** The hosts of rows run on several hosts at once (absent when there were none). */
  hosts?: HostsPartial;
  /** The telemetry of the rows, per case and host (absent when they had none). */
  telemetry?: TelemetryPartial;
  /** The measured repetitions' start instants (absent when no row had one). */
  starts?: StartsPartial;
  /** Per case id, its size classes (absent when no row had drawn sizes). */
  sizes?: [string, [number, SizeClassAcc][]][];
}

const CASE_HEADER = 8;
const LISTS = METRICS.length + EXTRAS.length;
const GROUP_SIZE = 2 + LISTS;

/** The cases of a partial, each with its info and where its part of the layout starts. */
function* partialCases(
  partial: ModelPartial,
  planCases: readonly PlanCase[],
): Generator<{ info: PlanCase; at: number }> {
  const { layout } = partial;
  let infos = 0;
  for (let c = 0, at = 0; c < partial.cases; c += 1) {
    const index = layout[at]!;
    const info = index >= 0 ? planCases[index] : partial.infos[infos++];
    if (!info) throw new Error(`a partial's case ${c} has no info (plan case ${index})`);
    yield { info, at };
    at += CASE_HEADER + layout[at + 5]! + layout[at + 6]! + layout[at + 7]! * GROUP_SIZE;
  }
}

export class RunModel {
  private readonly cases = new Map<string, CaseAcc>();
  private readonly series = new SeriesAccumulator();
  private readonly hosts = new HostAccumulator();
  private readonly telemetry = new TelemetryAccumulator();
  private readonly starts = new RepetitionStarts();
  /** Cases of workloads run in rounds: their measured rows wait in roundRows for the window. */
  private readonly inRounds = new Set<string>();
  private readonly roundRows: RowLike[] = [];
  rowsTotal = 0;
  rowsWarmup = 0;
  rowsFailed = 0;
  readonly sources = new Set<string>();

  /**
   * Cases of the plan, in plan order (rows for unknown cases are added after them). Partials given to
   * merge() must come from models made with the same plan: they refer to its cases by index.
   */
  constructor(
    readonly plan: ModelPlan = { cases: [] },
    readonly options: ModelOptions = {},
  ) {
    for (const c of plan.cases) {
      this.cases.set(c.id, newCase(c));
      if (plan.workloads?.[c.workload]?.rounds) this.inRounds.add(c.id);
    }
  }

  addRow(row: RowLike): void {
    this.rowsTotal += 1;
    if (row.source) this.sources.add(row.source);
    if (row.warmup) {
      this.rowsWarmup += 1;
      return;
    }
    if (!row.ok) this.rowsFailed += 1;
    if (this.options.series !== false) this.starts.add(row.case, row.repetition, row.start);
    if (this.inRounds.has(row.case)) {
      this.roundRows.push(row);
      return;
    }
    this.fold(row);
  }

  /** A measured row into its case's figures. */
  private fold(row: RowLike): void {
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
    if (row.hosts || row.targets) this.hosts.add(row);
    if (!row.ok) {
      acc.failures.set(row.repetition, row.error ?? "failed");
      return;
    }
    if (row.telemetry || row.hosts) this.telemetry.add(row.case, row);
    if (row.steady) {
      acc.steadyTotal += 1;
      if (row.steady.attained) acc.steadyAttained += 1;
    }
    if (row.schedule && behindSchedule(row.schedule)) acc.behindSchedule += 1;
    if (row.bySize) addSizeClasses(acc, row.bySize);
    if (row.autotune) {
      for (const step of row.autotune.rounds) {
        const values = groupValues(acc, step.value);
        values.ok += 1;
        pushMeasured(values.values, step);
        if (step.met !== undefined) values.extra.boundMet.push(step.met ? 1 : 0);
      }
      const { bound, chosen, rounds } = row.autotune;
      if (!bound) return;
      // The bound rule: each repetition's answer (its chosen round, the row's figures) is the measurement,
      // kept apart from the steps (figures.ts); 0 when none of its rounds met the bound.
      const met = rounds.some((r) => r.value === chosen && r.met);
      groupValues(acc, NaN).extra.boundChoice.push(met ? chosen : 0);
    }
    const tuned = acc.tunedParam !== undefined && !row.autotune ? row.params[acc.tunedParam] : undefined;
    const values = groupValues(acc, typeof tuned === "number" ? tuned : NaN);
    values.ok += 1;
    pushMeasured(values.values, row);
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

  /** A series point (series.ts). */
  addPoint(point: TimeseriesRow & { warmup?: boolean }): void {
    this.series.add(point);
  }

  hasSeries(caseId: string): boolean {
    return this.series.has(caseId);
  }

  /**
   * The rows folded in so far, as flat data for another thread (series points are not part of it: a
   * series depends on the order of all its points). Only cases with measured rows are included; the
   * buffers of `layout` and `values` are to be transferred.
   */
  partial(): { partial: ModelPartial; transfer: ArrayBuffer[] } {
    // The plan case each case's info is (the last of an id, as the constructor keeps it).
    const planIndex = new Map<string, number>();
    this.plan.cases.forEach((c, i) => planIndex.set(c.id, i));
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
      if (index !== undefined && this.plan.cases[index] === acc.info) layout.push(index);
      else {
        layout.push(-1);
        infos.push(acc.info);
      }
      layout.push(acc.measured, acc.steadyAttained, acc.steadyTotal, acc.behindSchedule);
      layout.push(acc.repetitions.size, acc.failures.size, acc.groups.size);
      for (const repetition of acc.repetitions) layout.push(repetition);
      for (const [repetition, error] of acc.failures) {
        layout.push(repetition);
        errors.push(error);
      }
      for (const [key, v] of acc.groups) {
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
    const sizes = [...this.cases.values()].flatMap((acc): [string, [number, SizeClassAcc][]][] =>
      acc.sizes.size > 0 ? [[acc.info.id, [...acc.sizes]]] : [],
    );
    const partial: ModelPartial = {
      rowsTotal: this.rowsTotal,
      rowsWarmup: this.rowsWarmup,
      rowsFailed: this.rowsFailed,
      sources: [...this.sources],
      cases: count,
      layout: flat,
      values,
      infos,
      errors,
      roundRows: packRoundRows(this.roundRows),
      ...(hosts && { hosts: hosts.partial }),
      ...(telemetry && { telemetry }),
      ...(starts && { starts }),
      ...(sizes.length > 0 && { sizes }),
    };
    const { packed, numbers } = partial.roundRows;
    return {
      partial,
      transfer: [
        flat.buffer,
        values.buffer,
        packed.buffer as ArrayBuffer,
        numbers.buffer as ArrayBuffer,
        ...(hosts?.transfer ?? []),
      ],
    };
  }

  /**
   * False if `partials`, rows that follow those folded in here (in this order), cannot be merged into the
   * result of folding their rows in: a case not in the plan whose first rows in two partials disagree on
   * the autotuned parameter (their rows would be grouped by different steps).
   */
  canMerge(partials: readonly ModelPartial[]): boolean {
    const tuned = new Map<string, string | undefined>();
    for (const acc of this.cases.values()) tuned.set(acc.info.id, acc.tunedParam);
    for (const partial of partials) {
      for (const { info } of partialCases(partial, this.plan.cases)) {
        const tunedParam = tunedParamOf(info);
        if (!tuned.has(info.id)) tuned.set(info.id, tunedParam);
        else if (tuned.get(info.id) !== tunedParam) return false;
      }
    }
    return true;
  }

  /** Adds rows that follow those folded in so far, as another model's partial() gave them. */
  merge(partial: ModelPartial): void {
    this.rowsTotal += partial.rowsTotal;
    this.rowsWarmup += partial.rowsWarmup;
    this.rowsFailed += partial.rowsFailed;
    for (const source of partial.sources) this.sources.add(source);
    for (const row of unpackRoundRows(partial.roundRows)) this.roundRows.push(row);
    if (partial.hosts) this.hosts.merge(partial.hosts);
    if (partial.telemetry) this.telemetry.merge(partial.telemetry);
    if (partial.starts) this.starts.merge(partial.starts);
    const { layout, values } = partial;
    const sizesOf = new Map(partial.sizes);
    let errors = 0;
    let from = 0;
    for (const { info, at } of partialCases(partial, this.plan.cases)) {
      let acc = this.cases.get(info.id);
      if (!acc) {
        acc = newCase(info);
        this.cases.set(info.id, acc);
      }
      const [repetitions, failures, groups] = [layout[at + 5]!, layout[at + 6]!, layout[at + 7]!];
      const reps = at + CASE_HEADER;
      for (let i = reps; i < reps + repetitions; i += 1)
        if (acc.failures.delete(layout[i]!)) acc.measured -= 1;
      acc.measured += layout[at + 1]!;
      for (let i = reps + repetitions; i < reps + repetitions + failures; i += 1)
        acc.failures.set(layout[i]!, partial.errors[errors++]!);
      for (let i = reps; i < reps + repetitions; i += 1) acc.repetitions.add(layout[i]!);
      acc.steadyAttained += layout[at + 2]!;
      acc.steadyTotal += layout[at + 3]!;
      acc.behindSchedule += layout[at + 4]!;
      for (const [size, part] of sizesOf.get(info.id) ?? []) mergeSizeClass(acc, size, part);
      for (let g = 0, group = reps + repetitions + failures; g < groups; g += 1, group += GROUP_SIZE) {
        const v = groupValues(acc, layout[group]!);
        v.ok += layout[group + 1]!;
        listsOf(v).forEach((list, m) => {
          const to = from + layout[group + 2 + m]!;
          for (let i = from; i < to; i += 1) list.push(values[i]!);
          from = to;
        });
      }
    }
  }

  /** Per workload run in rounds, per target: where its rounds stand (rounds-summary.ts). */
  rounds(): RoundsByWorkload {
    return summarizeAllRounds({ workloads: this.plan.workloads ?? {} }, this.roundRows);
  }

  /** The measured rows of one target's rounds of a workload, in the order they came. */
  roundRowsOf(workload: string, target: string): RowLike[] {
    return this.roundRows.filter((row) => row.workload === workload && row.target === target);
  }

  /** One case's figures as they stand (the console's line after each case). */
  figures(caseId: string, nics: readonly NicLimit[] = []): CaseFigures | undefined {
    if (!this.cases.has(caseId)) return undefined;
    return this.caseFiguresOf(
      caseId,
      nics,
      this.inRounds.has(caseId) ? this.windowed(this.rounds()) : undefined,
    );
  }

  /** Everything decided for the run: `nics` are the interfaces whose capacity the plan declares. */
  finish(expect: readonly PlannedExpect[], nics: readonly NicLimit[] = []): RunFigures {
    const rounds = this.rounds();
    const windowed = this.inRounds.size > 0 ? this.windowed(rounds) : undefined;
    const cases = [...this.cases.keys()].map((id) => this.caseFiguresOf(id, nics, windowed));
    const series = this.series.finish(
      (id) => this.cases.get(id)?.info,
      (id) => this.starts.of(id),
    );
    return { cases, expect: evaluateExpectations(expect, cases), series, rounds };
  }

  /** The cases of workloads in rounds, folded from their measurement windows' rows only. */
  private windowed(rounds: RoundsByWorkload): RunModel {
    const model = new RunModel({ cases: this.plan.cases.filter((c) => this.inRounds.has(c.id)) });
    for (const [workload, byTarget] of Object.entries(rounds))
      for (const [target, summary] of Object.entries(byTarget))
        for (const row of windowRows(summary, this.roundRowsOf(workload, target))) model.fold(row);
    return model;
  }

  private caseFiguresOf(caseId: string, nics: readonly NicLimit[], windowed?: RunModel): CaseFigures {
    const from = windowed?.cases.has(caseId) ? windowed : this;
    const figures = caseFigures(from.cases.get(caseId)!);
    const hosts = from.hosts.finish(caseId);
    const telemetry = from.telemetry.finish(caseId, nics);
    const warnings = telemetry ? clientBoundWarnings(telemetry, figures.engine, nics) : [];
    return {
      ...figures,
      warnings: [...new Set([...figures.warnings, ...warnings])],
      ...(hosts && { hosts }),
      ...(telemetry && { telemetry }),
    };
  }
}
