/**
 * The report's tables, as HTML (every cell escaped here); the per-case summary as CSV is csv.ts.
 */
import type { PlannedExpect } from "../plan/types.js";
import type { Comparison } from "../results/compare.js";
import { METRIC_INFO, type MetricFamily } from "../rows/metrics.js";
import type { Stats } from "../rows/stats.js";
import type { Metric } from "../rows/metric-names.js";
import { limitsFor } from "./charts/limits.js";
import { escapeHtml } from "./escape.js";
import { formatMetric, formatNumber, formatPercent, formatSignedPercent } from "./format.js";
import { partFigures } from "./hosts.js";
import type { CaseFigures, HostAgg, Limit, RunData } from "./model.js";
import { dimLabel, type Entry, type WorkloadView } from "./view.js";
import { engineReport } from "../engines/index.js";
import { SATURATED } from "../telemetry/verdict.js";
import { maxOf, minOf } from "../rows/stats.js";
import { num, table, type Cell } from "./html-table.js";

/** A column header whose tooltip says how each repetition's value of the metric is computed. */
const defined = (text: string, metric: Metric): Cell => ({
  html: escapeHtml(text),
  title: `per repetition: ${METRIC_INFO[metric].definition}`,
});
const badge = (ok: boolean, text: string): Cell => ({
  html: `<span class="badge ${ok ? "pass" : "fail"}">${escapeHtml(text)}</span>`,
});

function meanCi(metric: Metric, s: Stats | undefined): string {
  if (!s) return "–";
  const { family } = METRIC_INFO[metric];
  if (!s.ci95) return formatMetric(family, s.mean);
  return `${formatMetric(family, s.mean)} ± ${formatMetric(family, (s.ci95[1] - s.ci95[0]) / 2)}`;
}

/**
 * "% of limit" cells for the limits that apply to throughput or IOPS: a limit evaluated per target is one
 * column, each case measured against its own target's value.
 */
function limitColumns(
  limits: readonly Limit[],
): { title: string; metric: Metric; valueFor: (target: string) => number | undefined }[] {
  const columns = (family: MetricFamily, metric: Metric, prefix: string) => {
    const byLabel = new Map<string, ReturnType<typeof limitsFor>>();
    for (const l of limitsFor(limits, family)) byLabel.set(l.label, [...(byLabel.get(l.label) ?? []), l]);
    return [...byLabel].map(([label, list]) => ({
      title: `${prefix}% of ${label}`,
      metric,
      valueFor: (target: string) =>
        (list.find((l) => l.target === target) ?? list.find((l) => !l.target))?.value,
    }));
  };
  return [
    ...columns("throughput", "throughput", ""),
    ...columns("iops", "iops", ""),
    ...columns("time", "p99", "p99 "),
  ];
}

/** CPU-seconds per GiB, as the column shows it. */
const formatCpuPerGiB = (value: number | undefined) =>
  value === undefined ? "–" : `${formatNumber(value)} s/GiB`;

/**
 * The columns of what the client cost and of the time to first byte, each only when some case has it:
 * medians over the repetitions.
 */
/** Which optional columns any of the cases has a figure for. */
export function extraColumns(cases: readonly CaseFigures[]) {
  return {
    cpu: cases.some((c) => c.client?.cpuPerGiB !== undefined),
    elu: cases.some((c) => c.client?.eventLoopUtilization !== undefined),
    ttfbP50: cases.some((c) => c.ttfb?.p50 !== undefined),
    ttfbP99: cases.some((c) => c.ttfb?.p99 !== undefined),
  };
}

/**
 * The parameters that tell a case from the others, each named: a bare value says nothing of what it is.
 * The parameter an autotune chose is always there, marked as chosen (it is not the spec's value).
 */
function paramsCell(entry: Entry, dims: readonly string[]): string {
  const tuned = entry.c.autotune?.param;
  const names = tuned && !dims.includes(tuned) ? [...dims, tuned] : dims;
  return names.map((d) => `${d}=${dimLabel(entry, d)}${d === tuned ? " (autotuned)" : ""}`).join(" · ");
}

/**
 * Per workload: one row per case (and run): n, median, mean ± CI, CV, % of limits, what the client cost,
 * time to first byte, warnings.
 */
export function caseTable(view: WorkloadView, limits: readonly Limit[], multiRun: boolean): string {
  // An engine the registry does not know (rows from elsewhere) shows its IOPS and not its time.
  const hasIops = view.entries.some((e) => e.c.metrics.iops && engineReport(e.c.engine)?.iops !== false);
  const hasP99 = view.entries.some((e) => e.c.metrics.p99);
  const hasSeconds = view.entries.some((e) => engineReport(e.c.engine)?.seconds === true);
  const extra = extraColumns(view.entries.map((e) => e.c));
  const limitCols = limitColumns(limits).filter((l) => view.entries.some((e) => e.c.metrics[l.metric]));
  const dims = view.dims.filter((d) => d !== "run");
  const showParams = dims.length > 0 || view.entries.some((e) => e.c.autotune);
  const hasTelemetry = view.entries.some((e) => e.c.telemetry);
  const header = [
    ...(multiRun ? ["run"] : []),
    "case",
    ...(showParams ? ["parameters"] : []),
    "n",
    "failed",
    defined("throughput median", "throughput"),
    defined("throughput mean ± 95% CI", "throughput"),
    "CV",
    ...(hasIops ? [defined("IOPS median", "iops")] : []),
    ...(hasP99 ? [defined("p99 latency median", "p99")] : []),
    ...(hasSeconds ? [defined("time median", "seconds")] : []),
    ...(extra.ttfbP50 ? ["TTFB p50 median"] : []),
    ...(extra.ttfbP99 ? ["TTFB p99 median"] : []),
    ...(extra.cpu ? ["client CPU per GiB median"] : []),
    ...(extra.elu ? ["event loop busy median"] : []),
    ...limitCols.map((l) => l.title),
    "steady state",
    ...(hasTelemetry ? [{ html: "client host", title: VERDICT_RULE }] : []),
    "warnings",
  ];
  const rows = view.entries.map(({ run, c }: Entry) => {
    const tp = c.metrics.throughput;
    const cells: Cell[] = [
      ...(multiRun ? [run.label] : []),
      { html: `<code>${escapeHtml(c.id)}</code>` },
      ...(showParams ? [paramsCell({ run, c }, dims)] : []),
      num(String(c.repetitions - c.failed)),
      c.failed > 0
        ? { html: escapeHtml(String(c.failed)), className: "num fail", title: c.errors.join("\n") }
        : num("0"),
      num(formatMetric("throughput", tp?.median)),
      num(meanCi("throughput", tp)),
      num(tp ? formatPercent(tp.cv) : "–"),
      ...(hasIops ? [num(formatMetric("iops", c.metrics.iops?.median))] : []),
      ...(hasP99 ? [num(formatMetric("time", c.metrics.p99?.median))] : []),
      ...(hasSeconds ? [num(formatMetric("time", c.metrics.seconds?.median))] : []),
      ...(extra.ttfbP50 ? [num(formatMetric("time", c.ttfb?.p50))] : []),
      ...(extra.ttfbP99 ? [num(formatMetric("time", c.ttfb?.p99))] : []),
      ...(extra.cpu
        ? [num(formatCpuPerGiB(c.client?.cpuPerGiB), "CPU-seconds benchspec used per GiB moved")]
        : []),
      ...(extra.elu
        ? [
            num(
              formatPercent(c.client?.eventLoopUtilization),
              "event-loop utilization of the busiest client thread: near 100%, the client was the limit",
            ),
          ]
        : []),
      ...limitCols.map((l) => {
        const median = c.metrics[l.metric]?.median;
        const value = l.valueFor(c.target);
        return num(median !== undefined && value !== undefined ? formatPercent(median / value) : "–");
      }),
      c.steady
        ? badge(c.steady.attained === c.steady.total, `${c.steady.attained} of ${c.steady.total} attained`)
        : "–",
      ...(hasTelemetry ? [verdictCell(c)] : []),
      {
        html: [...c.warnings, ...c.errors.map((e) => `error: ${e}`)]
          .map((w) => `<div>${escapeHtml(w)}</div>`)
          .join(""),
      },
    ];
    return cells;
  });
  return table(header, rows, "cases");
}

/** What the verdict column's header says it is (language.md §21). */
const VERDICT_RULE = `Saturated: a resource of the client host at ${SATURATED * 100}% or more over the measured repetitions (their mean) — network: an interface's rate in either direction, of the capacity a report.limits entry declares for it (no declared capacity, not judged); device: the share of time it had I/O in flight; client CPU: all cores busy, or one thread of a process benchspec drives busy (one core is all a thread can use).`;

/** The case's verdict per client host: each saturated resource on a line, or "none saturated". */
function verdictCell(c: CaseFigures): Cell {
  const lines = (c.telemetry ?? []).flatMap(({ host, saturated }) => {
    const prefix = host !== undefined ? `${host}: ` : "";
    return saturated.length > 0 ? saturated.map((s) => prefix + s) : [`${prefix}none saturated`];
  });
  if (lines.length === 0) return "–";
  const saturated = c.telemetry!.some((t) => t.saturated.length > 0);
  return {
    html: lines.map((l) => `<div>${escapeHtml(l)}</div>`).join(""),
    // The rule is the header's tooltip: on each of 1,000 rows it would add half a MB.
    ...(saturated && { className: "verdict fail" }),
  };
}

/**
 * Per workload, the cases run on several hosts (or targets) at once: a row of all of them together (the
 * row's merged figures and the start spread), then a row per host or target with its own figures — which
 * was slow, late or failed. Empty when no case ran on several.
 */
export function hostTable(view: WorkloadView, multiRun: boolean): string {
  const entries = view.entries.filter((e) => e.c.hosts);
  if (entries.length === 0) return "";
  const by = entries[0]!.c.hosts!.by;
  const F = partFigures(by);
  const hasIops = entries.some((e) => engineReport(e.c.engine)?.iops !== false);
  const hasLatency = entries.some(
    (e) => e.c.metrics.p50 || e.c.hosts!.hosts.some((h) => h.p50 !== undefined),
  );
  const time = (value: number | undefined) => num(formatMetric("time", value));
  const header: Cell[] = [
    ...(multiRun ? ["run"] : []),
    "case",
    by,
    "n",
    "failed",
    {
      html: "throughput median",
      title: `all ${by}s: merged throughput, ${F.merged}; a ${by}: ${F.host}`,
    },
    { html: `of the fastest ${by}`, title: F.ofFastest },
    ...(hasIops ? [{ html: "IOPS median", title: `operations ÷ seconds, as throughput` }] : []),
    ...(hasLatency
      ? [
          { html: "p50 latency median", title: F.latency },
          { html: "p99 latency median", title: F.latency },
        ]
      : []),
    { html: "time median", title: `all ${by}s: the common window, ${F.window}; a ${by}: its own` },
    {
      html: "start",
      title: `all ${by}s: start spread, ${F.spread} (median and largest); a ${by}: ${F.offset} (median)`,
    },
    "errors",
  ];
  const rows = entries.flatMap(({ run, c }): Cell[][] => {
    const { hosts, startSpread } = c.hosts!;
    const fastest = maxOf(
      hosts.map((h) => h.throughput ?? 0),
      0,
    );
    const slowest = minOf(hosts.map((h) => h.throughput ?? Infinity));
    const lead = (host: Cell): Cell[] => [
      ...(multiRun ? [run.label] : []),
      { html: `<code>${escapeHtml(c.id)}</code>` },
      host,
    ];
    const all: Cell[] = [
      ...lead({ html: `<b>all ${hosts.length} ${by}s</b>`, title: `merged: ${F.merged}` }),
      num(String(c.repetitions - c.failed)),
      c.failed > 0 ? { html: String(c.failed), className: "num fail" } : num("0"),
      num(formatMetric("throughput", c.metrics.throughput?.median)),
      num("–"),
      ...(hasIops ? [num(formatMetric("iops", c.metrics.iops?.median))] : []),
      ...(hasLatency ? [time(c.metrics.p50?.median), time(c.metrics.p99?.median)] : []),
      time(c.metrics.seconds?.median),
      num(
        startSpread
          ? `spread ${formatMetric("time", startSpread.median)} (max ${formatMetric("time", startSpread.max)})`
          : "–",
      ),
      "",
    ];
    const perHost = hosts.map((h: HostAgg): Cell[] => {
      const slow =
        hosts.length > 1 && h.throughput !== undefined && h.throughput === slowest && slowest < fastest;
      return [
        ...lead(h.host),
        num(String(h.repetitions - h.failed)),
        h.failed > 0 ? { html: String(h.failed), className: "num fail" } : num("0"),
        {
          html: escapeHtml(formatMetric("throughput", h.throughput)),
          className: slow ? "num slowest" : "num",
          ...(slow && { title: `the slowest ${by} of this case` }),
        },
        num(h.throughput !== undefined && fastest > 0 ? formatPercent(h.throughput / fastest) : "–"),
        ...(hasIops ? [num(formatMetric("iops", h.iops))] : []),
        ...(hasLatency ? [time(h.p50), time(h.p99)] : []),
        time(h.seconds),
        num(h.offset === undefined ? "–" : h.offset === 0 ? "0" : `+${formatMetric("time", h.offset)}`),
        { html: h.errors.map((e) => `<div>${escapeHtml(e)}</div>`).join("") },
      ];
    });
    return [all, ...perHost];
  });
  return table(header, rows, "hosts");
}

/** Expect results: measured vs expected per assertion and case. */
export function expectTable(runs: readonly RunData[]): string {
  const multi = runs.length > 1;
  const rows: Cell[][] = [];
  for (const run of runs) {
    for (const result of run.expect) {
      const planned: PlannedExpect | undefined = run.plan.expect.find((e) => e.index === result.index);
      const { family } = METRIC_INFO[result.metric];
      // A bound its target's vars made its own says whose: each disk's number beside the formula.
      const formula = (text: string | undefined) =>
        text ? ` (${text}${result.target ? ` with ${result.target}'s vars` : ""})` : "";
      const bounds = [
        result.atLeast !== undefined &&
          `≥ ${formatMetric(family, result.atLeast)}${formula(planned?.atLeastText)}`,
        result.atMost !== undefined &&
          `≤ ${formatMetric(family, result.atMost)}${formula(planned?.atMostText)}`,
      ].filter(Boolean) as string[];
      const bound = result.atLeast ?? result.atMost;
      rows.push([
        ...(multi ? [run.label] : []),
        num(String(result.index)),
        planned?.description ?? "",
        result.workload,
        { html: `<code>${escapeHtml(result.case)}</code>` },
        METRIC_INFO[result.metric].title,
        bounds.join(" and "),
        num(result.measured !== undefined ? formatMetric(family, result.measured) : (result.reason ?? "–")),
        num(result.measured !== undefined && bound ? formatPercent(result.measured / bound) : "–"),
        // A case the run never reached: neither pass nor fail.
        result.status === "not run" ? "not run" : badge(result.pass, result.pass ? "pass" : "fail"),
      ]);
    }
  }
  if (rows.length === 0) return "";
  return table(
    [
      ...(multi ? ["run"] : []),
      "#",
      "description",
      "workload",
      "case",
      "metric",
      "expected",
      "measured (median)",
      "% of bound",
      "result",
    ],
    rows,
    "expect",
  );
}

/** The declared limits and how close the best case came to each. */
export function limitTable(runs: readonly RunData[], limits: readonly Limit[]): string {
  if (limits.length === 0) return "";
  const rows = limits.map((limit): Cell[] => {
    const [metric, value] =
      limit.throughput !== undefined
        ? (["throughput", limit.throughput] as const)
        : limit.iops !== undefined
          ? (["iops", limit.iops] as const)
          : (["p99", limit.latency!] as const);
    let best: { c: CaseFigures; run: RunData; v: number } | undefined;
    for (const run of runs) {
      for (const c of run.cases) {
        // A target's limit is its own cases' limit.
        if (limit.target !== undefined && c.target !== limit.target) continue;
        const v = c.metrics[metric]?.median;
        if (v === undefined) continue;
        const better = metric === "p99" ? !best || v < best.v : !best || v > best.v;
        if (better) best = { c, run, v };
      }
    }
    const { family } = METRIC_INFO[metric];
    return [
      limit.target !== undefined ? `${limit.label} (${limit.target})` : limit.label,
      num(`${formatMetric(family, value)}${limit.text ? ` = ${limit.text}` : ""}`),
      best
        ? {
            html: `<code>${escapeHtml(best.c.id)}</code>${runs.length > 1 ? ` (${escapeHtml(best.run.label)})` : ""}`,
          }
        : "–",
      num(best ? formatMetric(family, best.v) : "–"),
      num(best ? formatPercent(best.v / value) : "–"),
    ];
  });
  return table(["limit", "value", metricsBestTitle(limits), "its median", "% of limit"], rows, "limits");
}

const metricsBestTitle = (limits: readonly Limit[]) =>
  limits.every((l) => l.latency !== undefined) ? "lowest-latency case" : "best case";

export function compareTable(comparison: Comparison): string {
  const rows = comparison.cases.map((c): Cell[] => {
    const { family } = METRIC_INFO[c.metric];
    const significant = c.change !== undefined && c.significant;
    const cls =
      c.verdict === "regression" || c.verdict === "failed"
        ? "fail"
        : c.verdict === "improvement"
          ? "pass"
          : "";
    return [
      { html: `<code>${escapeHtml(c.case)}</code>` },
      METRIC_INFO[c.metric].title,
      num(c.base ? formatMetric(family, c.base.median) : "–", c.base ? `n = ${c.base.n}` : undefined),
      num(c.new ? formatMetric(family, c.new.median) : "–", c.new ? `n = ${c.new.n}` : undefined),
      num(
        c.change === undefined ? "–" : `${formatSignedPercent(c.change)}${significant ? "" : " (~)"}`,
        c.test === "ci"
          ? "significance decided by the confidence interval (too few repetitions for Mann–Whitney)"
          : c.test === "mann-whitney"
            ? "significance decided by the Mann–Whitney U test"
            : undefined,
      ),
      num(c.ci95 ? `${formatSignedPercent(c.ci95[0])} … ${formatSignedPercent(c.ci95[1])}` : "–"),
      num(c.p !== undefined ? formatNumber(c.p) : "–"),
      {
        html: `<span class="verdict ${cls}">${escapeHtml(c.verdict)}</span>${c.note ? ` <span class="note">${escapeHtml(c.note)}</span>` : ""}`,
      },
    ];
  });
  return table(
    [
      "case",
      "metric",
      `base (${comparison.base})`,
      `new (${comparison.new})`,
      "change",
      "95% CI",
      "p",
      "verdict",
    ],
    rows,
    "compare",
  );
}
