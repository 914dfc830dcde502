/**
 * `benchspec report`: runs → one self-contained HTML page.
 *   1. load      every input (run directory, results NDJSON, fio JSON), aggregating as rows stream (load.ts)
 *   2. charts    chosen from the data's shape and the spec's report section (charts/)
 *   3. render    each chart to SVG in Node, so the page reads without JavaScript (render.ts)
 *   4. tables    per case, expect, limits, comparison, provenance, CSV (tables.ts)
 *   5. assemble  templates/report.html: libraries inlined, data as escaped JSON, a CSP with the hash of
 *                every script the page runs and no 'unsafe-eval' (Vega runs with its AST interpreter)
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../platform/atomic-write.js";
import { PACKAGE_ROOT } from "../platform/package-root.js";
import type { Comparison } from "../results/compare.js";
import type { Trend } from "../results/trend.js";
import { runPaths } from "../results/run-dir.js";
import { buildCharts, numberCharts, type Chart } from "./charts/index.js";
import { trendCharts } from "./charts/trend.js";
import { mergedLimits } from "./charts/limits.js";
import { withTelemetryCharts } from "./charts/telemetry.js";
import { dataUri, escapeHtml, fileName, jsonForScript } from "./escape.js";
import { labelRuns, loadInputs, loadRunDirOfModel } from "./load.js";
import type { RunModel } from "../results/model/accumulator.js";
import type { RunData } from "./model.js";
import { loadLibraries, renderSvg } from "./render.js";
import { partFigures } from "./hosts.js";
import { provenanceTable } from "./provenance-table.js";
import { caseTable, compareTable, expectTable, hostTable, limitTable } from "./tables.js";
import { summaryCsv } from "./csv.js";
import { trendCaseTable, trendRegressionTable } from "./trend-tables.js";
import { workloadViews, type WorkloadView } from "./view.js";

export { loadInputs } from "./load.js";
export type { RunData } from "./model.js";

export interface ReportOptions {
  /** benchspec's version, for the page's footer and generator tag. */
  version: string;
  title?: string;
  comparison?: Comparison;
  /** Runs of one spec over time: drawn first, above the latest run's report (`runs` is then that run). */
  trend?: Trend;
  /** Fixed for reproducible output in tests; default now. */
  generatedAt?: Date;
}

export interface BuiltReport {
  html: string;
  charts: Chart[];
  /** Vega/Vega-Lite warnings met while pre-rendering (a chart that renders with warnings still renders). */
  warnings: string[];
}

const TEMPLATE = join(PACKAGE_ROOT, "templates", "report.html");
/** Inline CSV (a <pre> to read) only up to this size. */
const INLINE_CSV_LIMIT = 64 * 1024;
/**
 * The CSV download is in the page only up to this size (about 2,000 cases): beyond, it would be most of the
 * page, which must stay a few MB at any case count.
 */
export const CSV_EMBED_LIMIT = 2_000_000;

export async function buildReport(runs: readonly RunData[], options: ReportOptions): Promise<BuiltReport> {
  if (runs.length === 0) throw new Error("a report needs at least one run");
  const built = buildCharts({
    runs,
    ...(options.comparison && { comparison: options.comparison }),
  });
  const { notes } = built;
  // The host telemetry under each time series: its samples are read now, for the cases drawn.
  const runCharts = await withTelemetryCharts(built.charts, runs);
  const trendChartList = options.trend ? trendCharts(options.trend, () => "") : [];
  const charts = options.trend ? numberCharts([...trendChartList, ...runCharts]) : runCharts;
  const warnings: string[] = [];
  const svgs = new Map<string, string>();
  for (const chart of charts) {
    const rendered = await renderSvg(chart.image ?? chart.spec);
    warnings.push(...rendered.warnings.map((w) => `${chart.id} (${chart.title}): ${w}`));
    svgs.set(chart.id, rendered.svg);
  }
  const libraries = await loadLibraries();
  const template = await readFile(TEMPLATE, "utf8");
  const appScript = /<script id="benchspec-app">([\s\S]*?)<\/script>/.exec(template)?.[1];
  if (appScript === undefined) throw new Error(`${TEMPLATE}: no <script id="benchspec-app">`);

  const limits = mergedLimits(runs);
  const title = options.title ?? reportTitle(runs);
  const chartHtml = (chart: Chart) => figure(chart, svgs.get(chart.id)!);
  const byWorkload = new Map<string, Chart[]>();
  for (const chart of charts)
    if (chart.workload) byWorkload.set(chart.workload, [...(byWorkload.get(chart.workload) ?? []), chart]);

  const sections: { id: string; title: string; html: string }[] = [];
  if (options.trend) sections.push(...trendSections(options.trend, trendChartList.map(chartHtml), runs[0]!));
  if (options.comparison) {
    const chart = charts.find((c) => c.kind === "compare");
    sections.push({
      id: "comparison",
      title: "Comparison",
      html: `${comparisonSummary(options.comparison)}${chart ? chartHtml(chart) : ""}${compareTable(options.comparison)}`,
    });
  }
  const expectations = expectTable(runs);
  if (expectations) {
    const chart = charts.find((c) => c.kind === "expect");
    sections.push({
      id: "expect",
      title: "Expectations",
      html: `${expectations}${chart ? chartHtml(chart) : ""}`,
    });
  }
  const views = workloadViews(runs);
  for (const view of views) {
    sections.push({
      id: `workload-${fileName(view.name)}`,
      title: `Workload ${view.name}`,
      html: [
        view.description ? `<p class="description">${escapeHtml(view.description)}</p>` : "",
        ...(byWorkload.get(view.name) ?? []).map(chartHtml),
        `<h3>Cases</h3>`,
        caseTable(view, limits, runs.length > 1),
        hostsHtml(view, runs.length > 1),
      ].join("\n"),
    });
  }
  const limitsHtml = limitTable(runs, limits);
  if (limitsHtml) sections.push({ id: "limits", title: "Limits", html: limitsHtml });
  sections.push({
    id: "provenance",
    title: runs.length > 1 ? "Provenance of each run" : "Provenance",
    html: provenanceTable(runs),
  });
  const csv = summaryCsv(runs);
  sections.push({ id: "export", title: "Export", html: exportHtml(runs, title, csv) });

  const allNotes = [
    ...runs.flatMap((run) => run.notes.map((n) => (runs.length > 1 ? `${run.label}: ${n}` : n))),
    ...notes,
  ];
  const header = [
    `<h1>${escapeHtml(title)}</h1>`,
    // Runs of one spec share its description: each distinct one once.
    ...[...new Set(runs.flatMap((run) => (run.plan.description ? [run.plan.description] : [])))].map(
      (description) => `<p class="description">${escapeHtml(description)}</p>`,
    ),
    `<p class="meta">${escapeHtml(runsLine(runs))}</p>`,
    summaryBoxes(runs, options.comparison),
    allNotes.length > 0
      ? `<div class="notes"><ul>${allNotes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul></div>`
      : "",
    `<nav><ul>${sections.map((s) => `<li><a href="#${escapeHtml(s.id)}">${escapeHtml(s.title)}</a></li>`).join("")}</ul></nav>`,
  ].join("\n");
  const body = sections
    .map((s) => `<section id="${escapeHtml(s.id)}"><h2>${escapeHtml(s.title)}</h2>\n${s.html}</section>`)
    .join("\n");
  const generatedAt = (options.generatedAt ?? new Date()).toISOString();
  const footer = escapeHtml(
    `Generated by benchspec ${options.version} at ${generatedAt} with ${Object.entries(libraries.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}. Charts are pre-rendered as images and redrawn interactively when JavaScript runs.`,
  );
  const data = { charts: charts.map((c) => ({ id: c.id, file: fileName(c.title), spec: c.spec })) };
  const scripts = [...libraries.scripts.map((s) => s.source), appScript];
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((s) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`).join(" ")}`,
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "connect-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const html = fillTemplate(template, {
    csp: escapeHtml(csp),
    generator: escapeHtml(`benchspec ${options.version}`),
    title: escapeHtml(title),
    header,
    body,
    footer,
    data: jsonForScript(data),
    libraries: libraries.scripts
      .map((s) => `<script data-library="${escapeHtml(s.name)}">${s.source}</script>`)
      .join("\n"),
  });
  return { html, charts, warnings };
}

/** Runs over time, then the regressions; the latest run's own sections follow. */
function trendSections(trend: Trend, charts: readonly string[], latest: RunData) {
  const [first, last] = [trend.runs[0]!, trend.runs.at(-1)!];
  const span = first.start && last.start ? ` from ${first.start} to ${last.start}` : "";
  return [
    {
      id: "trend",
      title: "Runs over time",
      html: [
        `<p class="description">${escapeHtml(
          `${trend.runs.length} runs of ${trend.spec}${span}, ordered by their start. Below the trend and its regressions, the latest run (${latest.label}) in full.`,
        )}</p>`,
        ...charts,
        `<h3>Cases</h3>`,
        trendCaseTable(trend),
      ].join("\n"),
    },
    { id: "regressions", title: "Regressions", html: trendRegressionTable(trend) },
  ];
}

/** The hosts (or targets) table of a workload whose cases ran on several at once, with what its figures are. */
function hostsHtml(view: WorkloadView, multiRun: boolean): string {
  const table = hostTable(view, multiRun);
  if (!table) return "";
  const by = view.entries.find((e) => e.c.hosts)!.c.hosts!.by;
  const F = partFigures(by);
  const what = by === "host" ? "client hosts" : "targets";
  return [
    `<h3>${by === "host" ? "Hosts" : "Targets"}</h3>`,
    `<p class="description">${escapeHtml(
      `Cases run on several ${what} at once, medians over the repetitions. A case's first row is all ${by}s together: its throughput is the merged throughput (${F.merged}, the common window running ${F.window}) and its start is the start spread (${F.spread}; median and largest). Then a row per ${by} with its own figures: throughput is ${F.host}, start is ${F.offset}.`,
    )}</p>`,
    table,
  ].join("\n");
}

function exportHtml(runs: readonly RunData[], title: string, csv: string): string {
  const cases = runs.reduce((n, r) => n + r.cases.length, 0);
  if (csv.length > CSV_EMBED_LIMIT) {
    const where = runs.every((r) => r.kind === "run")
      ? "each run directory's summary.json has every case's statistics"
      : "the inputs hold every case's rows";
    return `<p>${escapeHtml(`The per-case summary of ${cases} cases (${(csv.length / 1e6).toFixed(1)} MB of CSV) is too large to embed in this page; ${where}.`)}</p>`;
  }
  return [
    `<p><a download="${escapeHtml(fileName(title))}-summary.csv" href="${escapeHtml(dataUri("text/csv", csv))}">Download the per-case summary as CSV</a> (${cases} cases).</p>`,
    csv.length <= INLINE_CSV_LIMIT
      ? `<details><summary>Show the CSV</summary><pre class="csv">${escapeHtml(csv)}</pre></details>`
      : "",
  ].join("");
}

/** Replaces every {{name}} of the template in one pass, so no filled-in text is ever read as a placeholder. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`report template: no value for ${whole}`);
    return value;
  });
}

/** Up to this size a chart's SVG is also the "Save SVG" link's href, so saving works without JavaScript. */
const SVG_LINK_INLINE_LIMIT = 100_000;

function figure(chart: Chart, svg: string): string {
  const name = fileName(chart.title);
  const uri = escapeHtml(dataUri("image/svg+xml", svg));
  const inline = uri.length <= SVG_LINK_INLINE_LIMIT;
  return [
    `<figure class="chart" id="${escapeHtml(chart.id)}" data-kind="${escapeHtml(chart.kind)}">`,
    `<div class="static"><img alt="${escapeHtml(chart.title)}" src="${uri}" /></div>`,
    `<div class="live"></div>`,
    // A large chart's SVG is in the page once (the image); the script points the link at it.
    `<div class="toolbar"><a class="svg" download="${escapeHtml(name)}.svg"${inline ? ` href="${uri}"` : ""}>Save SVG</a>`,
    `<button type="button" class="link png js-only">Save PNG</button></div>`,
    `<figcaption>${chart.caption.map((c) => `<p>${escapeHtml(c)}</p>`).join("")}${inline ? "" : "<noscript><p>To save this chart, save the image.</p></noscript>"}</figcaption>`,
    `</figure>`,
  ].join("\n");
}

function reportTitle(runs: readonly RunData[]): string {
  const titles = [...new Set(runs.map((r) => r.plan.report.title ?? r.plan.name))];
  return titles.length === 1 ? titles[0]! : `benchspec report: ${titles.join(", ")}`;
}

function runsLine(runs: readonly RunData[]): string {
  return runs
    .map((run) => {
      const when = run.provenance?.start ?? run.state?.start;
      return `${run.label}${when ? ` (${when})` : ""}: ${run.cases.length} case${run.cases.length === 1 ? "" : "s"}, ${run.rows.measured} measured repetition${run.rows.measured === 1 ? "" : "s"}`;
    })
    .join(" · ");
}

function summaryBoxes(runs: readonly RunData[], comparison?: Comparison): string {
  const cases = runs.reduce((n, r) => n + r.cases.length, 0);
  const failed = runs.reduce((n, r) => n + r.cases.filter((c) => c.failed > 0).length, 0);
  const expects = runs.flatMap((r) => r.expect);
  const met = expects.filter((e) => e.pass).length;
  const notRun = expects.filter((e) => e.status === "not run").length;
  const boxes = [
    `<div><b>${cases}</b>case${cases === 1 ? "" : "s"}${runs.length > 1 ? ` in ${runs.length} runs` : ""}</div>`,
    `<div><b class="${failed > 0 ? "verdict fail" : ""}">${failed}</b>case${failed === 1 ? "" : "s"} with failed repetitions</div>`,
    ...(expects.length > 0
      ? [
          `<div><b class="verdict ${met === expects.length ? "pass" : "fail"}">${met} of ${expects.length}</b>expectations met${notRun > 0 ? `, ${notRun} not run` : ""}</div>`,
        ]
      : []),
    ...(comparison
      ? [
          `<div><b class="verdict ${comparison.regressions > 0 ? "fail" : "pass"}">${comparison.regressions}</b>regression${comparison.regressions === 1 ? "" : "s"}, ${comparison.improvements} improvement${comparison.improvements === 1 ? "" : "s"}</div>`,
        ]
      : []),
  ];
  return `<div class="summary">${boxes.join("")}</div>`;
}

function comparisonSummary(c: Comparison): string {
  return `<p>${escapeHtml(
    `${c.new} compared with ${c.base}: threshold ±${(c.options.threshold * 100).toFixed(1)}%, significance level ${c.options.alpha} (Mann–Whitney U; with too few repetitions for it, the bootstrap interval of the change), metric${c.options.metrics.length > 1 ? "s" : ""} ${c.options.metrics.join(", ")}.`,
  )}</p>`;
}

/**
 * Writes a run directory's report.html and returns its path (called at the end of `benchspec run`).
 * `shownAs`: the directory the report names, when it is written into one that is moved there afterwards.
 * `model`: the run's rows and series already folded in (merge's), so they are not read back.
 */
export async function writeRunReport(
  runDir: string,
  version: string,
  shownAs = runDir,
  model?: RunModel,
): Promise<string> {
  const loaded = model ? labelRuns([await loadRunDirOfModel(runDir, model)]) : await loadInputs([runDir]);
  const runs = loaded.map((run) => ({
    ...run,
    label: basename(shownAs),
    path: shownAs,
  }));
  const { html } = await buildReport(runs, { version });
  const file = runPaths(runDir).report;
  await writeFileAtomic(file, html);
  return file;
}
