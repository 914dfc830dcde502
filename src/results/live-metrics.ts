/**
 * A run's live metrics in the Prometheus text exposition format (0.0.4, which OpenMetrics scrapers read
 * too): what `benchspec run --metrics` serves while the run lasts. Counters grow as each measured
 * repetition's row is written — per case and client host, the operations, bytes and repetitions, and the
 * latency as a histogram whose buckets are the same for every series (so PromQL's `histogram_quantile`
 * pools hosts and cases) — beside gauges of where the run stands (the running case, cases done, an ETA)
 * and the client hosts' telemetry of their last repetition. Warm-ups count nowhere, as in the rows' figures.
 * Names follow Prometheus's conventions: a `benchspec_` prefix, base units (seconds, bytes), `_total` on
 * counters; label values are escaped (spec names and host names reach them).
 */
import type { Histogram } from "hdr-histogram-js";
import { decodeHistogram } from "../rows/histogram.js";
import type { ResultRow } from "../rows/row.js";
import type { TelemetrySummary } from "../rows/telemetry.js";

/** Upper bounds of the latency buckets, seconds: 1 µs × 2^(k/4) to about 17 minutes, 4 significant digits. */
export const LATENCY_BUCKETS: readonly number[] = Array.from({ length: 121 }, (_, k) =>
  Number((1e-6 * 2 ** (k / 4)).toPrecision(4)),
);

/**
 * A series' histogram as lines, kept until its next row: rows come once a repetition, scrapes every few
 * seconds, and these lines are most of a scrape (LE.length + 2 per series).
 */
function latencyLines(s: Series): string {
  const bucket = `benchspec_latency_seconds_bucket${s.text},le="`;
  const lines = LE.map((le, i) => `${bucket}${le}"} ${num(s.buckets![i]!)}`);
  lines.push(`benchspec_latency_seconds_sum${s.text}} ${num(s.latencySum)}`);
  lines.push(`benchspec_latency_seconds_count${s.text}} ${num(s.latencyCount)}`);
  return lines.join("\n");
}

/** The buckets' `le` values as written, +Inf last. */
const LE = [...LATENCY_BUCKETS.map(String), "+Inf"];

/** The identity of a case's series (its labels, in this order). */
export interface CaseLabels {
  case: string;
  workload: string;
  target: string;
  engine: string;
  op: string;
}

interface Series {
  labels: CaseLabels & { host: string };
  /** The labels as written, without the closing brace (escaped once: a scrape only joins strings). */
  text: string;
  operations: number;
  bytes: number;
  repetitions: { ok: number; failed: number };
  /** Cumulative counts per LATENCY_BUCKETS bound, then +Inf; absent until a row brought a histogram. */
  buckets?: Float64Array;
  latencySum: number;
  latencyCount: number;
  /** The histogram's lines as the last scrape wrote them; undefined when a row changed them since. */
  latencyLines?: string;
}

export class LiveMetrics {
  private readonly series = new Map<string, Series>();
  private readonly telemetry = new Map<string, TelemetrySummary>();
  private running?: CaseLabels;
  private repetition?: { repetition: number; warmup: boolean };
  private round?: { workload: string; round: number; max: number };
  private spec?: string;
  private cases = 0;
  private casesDone = 0;
  private readonly startedAt: number;

  /** `localHost`: the name of this machine's series (cases run on no host group). */
  constructor(
    private readonly localHost: string,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  caseStart(labels: CaseLabels, total: number): void {
    this.running = labels;
    this.repetition = undefined;
    if (this.round?.workload !== labels.workload) this.round = undefined;
    this.cases = total;
  }

  /** The running case's repetition about to run. */
  repetitionStart(repetition: number, warmup: boolean): void {
    this.repetition = { repetition, warmup };
  }

  /** A workload in rounds starts a round: it stands until a case of another workload starts. */
  roundStart(workload: string, round: number, max: number): void {
    this.round = { workload, round, max };
  }

  caseDone(): void {
    this.casesDone += 1;
    this.running = undefined;
    this.repetition = undefined;
  }

  /** A repetition's row: each host's part (the row itself on one host) into its series. */
  repetitionDone(labels: CaseLabels, row: ResultRow): void {
    this.spec = row.spec;
    if (row.warmup) return;
    const parts = row.hosts?.length
      ? row.hosts.map((part) => ({ ...part, name: part.host }))
      : [{ ...row, name: row.host ?? this.localHost }];
    for (const part of parts) {
      const series = this.seriesOf(labels, part.name);
      series.repetitions[part.ok ? "ok" : "failed"] += 1;
      if (part.telemetry) this.telemetry.set(part.name, part.telemetry);
      if (!part.ok) continue;
      series.operations += part.ops;
      series.bytes += part.bytes;
      if (part.histograms?.latency) {
        const histogram = decodeHistogram(part.histograms.latency);
        const added = addToBuckets(
          (series.buckets ??= new Float64Array(LATENCY_BUCKETS.length + 1)),
          histogram,
        );
        series.latencyCount += added.count;
        series.latencySum += added.seconds;
        series.latencyLines = undefined;
      }
    }
  }

  private seriesOf(labels: CaseLabels, host: string): Series {
    const key = JSON.stringify([labels.case, host]);
    let series = this.series.get(key);
    if (!series) {
      const text = labelText({ ...labels, host });
      series = {
        labels: { ...labels, host },
        text: text.slice(0, -1),
        operations: 0,
        bytes: 0,
        repetitions: { ok: 0, failed: 0 },
        latencySum: 0,
        latencyCount: 0,
      };
      this.series.set(key, series);
    }
    return series;
  }

  /** The exposition: every family with its HELP and TYPE, series in the order they appeared. */
  render(): string {
    const out: string[] = [];
    const family = (name: string, type: string, help: string) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    const all = [...this.series.values()];

    family("benchspec_run_info", "gauge", "The run's spec, once its first row is written (always 1).");
    if (this.spec !== undefined) out.push(`benchspec_run_info${labelText({ spec: this.spec })} 1`);
    family("benchspec_cases", "gauge", "Cases the run has to run.");
    out.push(`benchspec_cases ${this.cases}`);
    family("benchspec_cases_done_total", "counter", "Cases finished (run, failed or skipped).");
    out.push(`benchspec_cases_done_total ${this.casesDone}`);
    family(
      "benchspec_eta_seconds",
      "gauge",
      "Seconds left at the run's pace so far (elapsed ÷ cases done × cases left); absent before the first case ends.",
    );
    const elapsed = (this.now() - this.startedAt) / 1000;
    if (this.casesDone > 0)
      out.push(`benchspec_eta_seconds ${num((elapsed / this.casesDone) * (this.cases - this.casesDone))}`);
    family("benchspec_case_running", "gauge", "1 for the case running now.");
    if (this.running) out.push(`benchspec_case_running${labelText(this.running)} 1`);
    family(
      "benchspec_repetition",
      "gauge",
      "The running case's repetition (a warm-up's number among the warm-ups, warmup=\"true\").",
    );
    if (this.running && this.repetition)
      out.push(
        `benchspec_repetition${labelText({ ...this.running, warmup: String(this.repetition.warmup) })} ${this.repetition.repetition}`,
      );
    family("benchspec_round", "gauge", "The round a workload run in rounds to steady state is in.");
    if (this.round)
      out.push(`benchspec_round${labelText({ workload: this.round.workload })} ${this.round.round}`);
    family("benchspec_rounds_max", "gauge", "The most rounds that workload may run.");
    if (this.round)
      out.push(`benchspec_rounds_max${labelText({ workload: this.round.workload })} ${this.round.max}`);

    family("benchspec_operations_total", "counter", "Successful operations of measured repetitions.");
    for (const s of all) out.push(`benchspec_operations_total${s.text}} ${num(s.operations)}`);
    family("benchspec_bytes_total", "counter", "Bytes moved by measured repetitions.");
    for (const s of all) out.push(`benchspec_bytes_total${s.text}} ${num(s.bytes)}`);
    family("benchspec_repetitions_total", "counter", "Measured repetitions, by result.");
    for (const s of all)
      for (const result of ["ok", "failed"] as const)
        out.push(`benchspec_repetitions_total${s.text},result="${result}"} ${s.repetitions[result]}`);

    family(
      "benchspec_latency_seconds",
      "histogram",
      "Per-operation latency of measured repetitions (response time in an open loop), in the same buckets for every series.",
    );
    for (const s of all) if (s.buckets) out.push((s.latencyLines ??= latencyLines(s)));

    const hosts = [...this.telemetry.entries()];
    const gauge = (name: string, help: string, values: [Record<string, string>, number][]) => {
      family(name, "gauge", help);
      for (const [labels, value] of values) out.push(`${name}${labelText(labels)} ${num(value)}`);
    };
    gauge(
      "benchspec_host_cpu_busy_ratio",
      "Share of the client host's cores busy (user + system) over its last measured repetition, mean.",
      hosts.map(([host, t]) => [{ host }, t.cpu.busy.mean]),
    );
    gauge(
      "benchspec_host_cpu_iowait_ratio",
      "Share of the client host's cores waiting for I/O over its last measured repetition, mean.",
      hosts.map(([host, t]) => [{ host }, t.cpu.iowait.mean]),
    );
    type Labelled = [Record<string, string>, number];
    /** Per host, per entry of one of its telemetry tables (interfaces, devices), a value of the entry. */
    const perEntry = <E>(
      label: string,
      table: (t: TelemetrySummary) => Record<string, E>,
      value: (e: E) => number,
    ) =>
      hosts.flatMap(([host, t]) =>
        Object.entries(table(t)).map(([name, entry]): Labelled => [{ host, [label]: name }, value(entry)]),
      );
    for (const direction of ["receive", "transmit"] as const)
      gauge(
        `benchspec_host_network_${direction}_bytes_per_second`,
        `Bytes per second the client host's interface ${direction === "receive" ? "received" : "sent"} over its last measured repetition, mean.`,
        perEntry(
          "interface",
          (t) => t.net,
          (n) => (direction === "receive" ? n.rx : n.tx).mean,
        ),
      );
    gauge(
      "benchspec_host_disk_utilization_ratio",
      "Share of time the client host's device was busy over its last measured repetition, mean.",
      perEntry(
        "device",
        (t) => t.disk,
        (d) => d.util.mean,
      ),
    );
    return `${out.join("\n")}\n`;
  }
}

/**
 * Each HDR bucket's count into the first bucket whose bound holds the HDR bucket's highest value (never
 * below a true value), accumulated as Prometheus's buckets are; the count and the sum of the values, each
 * at its HDR bucket's middle (as HdrHistogram's mean counts them). One walk over the counts array, in
 * value order (the histogram's own `mean` iterates it again, object by object: ten times slower).
 */
function addToBuckets(buckets: Float64Array, histogram: Histogram): { count: number; seconds: number } {
  const h = histogram as unknown as IndexedHistogram;
  let bucket = 0;
  let cumulative = 0;
  let sum = 0;
  for (let index = 0; index < h.countsArrayLength; index += 1) {
    const count = h.getCountAtIndex(index);
    if (count === 0) continue;
    const lowest = h.valueFromIndex(index);
    const highest = h.highestEquivalentValue(lowest);
    while (bucket < LATENCY_BUCKETS.length && LATENCY_BUCKETS[bucket]! < highest / 1e9) {
      buckets[bucket]! += cumulative;
      bucket += 1;
    }
    cumulative += count;
    sum += count * ((lowest + highest) / 2);
  }
  for (; bucket < buckets.length; bucket += 1) buckets[bucket]! += cumulative;
  return { count: cumulative, seconds: sum / 1e9 };
}

/** What hdr-histogram-js's JS histograms (the ones rows decode to) have beyond the Histogram interface. */
interface IndexedHistogram {
  countsArrayLength: number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
  highestEquivalentValue(value: number): number;
}

/** `{name="value",…}` with values escaped as the format asks: backslash, double quote, line feed. */
function labelText(labels: Readonly<Record<string, string>> | CaseLabels): string {
  const pairs = Object.entries(labels).map(
    ([name, value]) => `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
  );
  return `{${pairs.join(",")}}`;
}

/** A sample value: integers as such, others in JavaScript's shortest round-trip form. */
const num = (value: number) => (Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : "NaN");
