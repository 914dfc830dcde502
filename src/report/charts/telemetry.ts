/**
 * The client host under each time-series chart: CPU (busy and iowait) and network throughput per interface
 * over the same repetitions, on the same clock (seconds from the repetition's start); one line per host in
 * a case run on several. Samples are read only here, for the first MAX_TELEMETRY_CASES cases of each
 * time-series chart; a `report.limits` entry naming an interface is drawn as a rule on the network chart.
 */
import type { Limit, RunData } from "../model.js";
import { telemetrySeries, type TelemetrySeries } from "../telemetry-series.js";
import { filterKind, WIDTH, type Chart, type VlSpec } from "./common.js";
import { numberCharts } from "./index.js";
import { limitLayers, limitRows, mergedLimits } from "./limits.js";
import { MAX_INTERFACES, telemetryData, type TelemetryData } from "./telemetry-data.js";

/** Cases of a time-series chart whose telemetry is drawn: the lines of more could not be told apart. */
export const MAX_TELEMETRY_CASES = 6;

const PANEL_HEIGHT = 130;

/** The charts, each time-series chart followed by its cases' host telemetry (where sampled). */
export async function withTelemetryCharts(charts: Chart[], runs: readonly RunData[]): Promise<Chart[]> {
  const wanted = new Map<RunData, Set<string>>();
  for (const chart of charts)
    for (const { entry } of (chart.seriesCases ?? []).slice(0, MAX_TELEMETRY_CASES)) {
      if (!entry.run.telemetry) continue;
      wanted.set(entry.run, (wanted.get(entry.run) ?? new Set()).add(entry.c.id));
    }
  if (wanted.size === 0) return charts;
  // One read of each run's samples for all its charts.
  const loaded = new Map<RunData, TelemetrySeries[]>();
  for (const [run, ids] of wanted) loaded.set(run, await telemetrySeries(run, ids));
  const limits = mergedLimits(runs);
  const out = charts.flatMap((chart) => {
    const telemetry = chart.seriesCases && telemetryChart(chart, chart.seriesCases, loaded, limits);
    return telemetry ? [chart, telemetry] : [chart];
  });
  return numberCharts(out);
}

function telemetryChart(
  above: Chart,
  cases: NonNullable<Chart["seriesCases"]>,
  loaded: ReadonlyMap<RunData, TelemetrySeries[]>,
  limits: readonly Limit[],
): Chart | undefined {
  const drawn = cases.slice(0, MAX_TELEMETRY_CASES);
  const cased = drawn.length > 1;
  const series = drawn.flatMap(({ entry, label }) =>
    (loaded.get(entry.run) ?? [])
      .filter((s) => s.case === entry.c.id)
      .map((s) => ({
        label: [cased ? label : "", s.host ?? ""].filter(Boolean).join(" · "),
        series: s,
      })),
  );
  const nicLimits = limits.filter((l) => l.interface !== undefined && l.throughput !== undefined);
  const data = telemetryData(series, new Set(nicLimits.map((l) => l.interface!)));
  if (!data) return undefined;
  const hosted = series.some((s) => s.series.host !== undefined);
  const lines = [...(cased ? ["case"] : []), ...(hosted ? ["host"] : [])];
  const drawnLimits = nicLimits.filter((l) => data.interfaces.includes(l.interface!));
  const limit = limitRows(drawnLimits, "throughput", data.unit, data.max, [undefined]);
  const title = `${above.workload ?? ""}: client host over time`;
  const rows = [...data.rows, ...limit.rows];
  return {
    id: "",
    kind: "telemetry",
    ...(above.workload !== undefined && { workload: above.workload }),
    title,
    caption: [...telemetryCaption(data, cases.length, drawn.length), ...limit.caption],
    points: rows.length,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: { text: title, anchor: "start" },
      data: { values: rows },
      vconcat: [
        panel("cpu", "CPU (% of all cores)", lines.join(" · ") || "host", data, []),
        panel(
          "net",
          `network (${data.unit.unit})`,
          [...lines, "interface"].join(" · "),
          data,
          limitLayers(limit.rows),
        ),
      ],
      resolve: { scale: { color: "independent", strokeDash: "independent" } },
    },
  };
}

/** One panel: a line per case, host (and interface) and figure, solid or dashed by figure. */
function panel(
  kind: "cpu" | "net",
  yTitle: string,
  line: string,
  data: TelemetryData,
  extra: VlSpec[],
): VlSpec {
  const encoding = {
    // The time-series chart's clock and a domain from 0 to the last sample, for both panels alike.
    x: {
      field: "t",
      type: "quantitative",
      title: "time (s)",
      scale: { domain: [0, data.tMax], nice: false },
    },
    y: {
      field: "y",
      type: "quantitative",
      title: yTitle,
      ...(kind === "cpu" && { scale: { domain: [0, 100] } }),
    },
    color: { field: "s", type: "nominal", title: line, legend: { labelLimit: 240 } },
    strokeDash: {
      field: "d",
      type: "nominal",
      title: kind === "cpu" ? "CPU" : "direction",
      sort: kind === "cpu" ? ["busy", "iowait"] : ["rx", "tx"],
    },
    tooltip: [
      { field: "s", title: line },
      { field: "d", title: "figure" },
      { field: "t", title: "t (s)" },
      { field: "y", title: yTitle },
    ],
  };
  return {
    width: WIDTH,
    height: PANEL_HEIGHT,
    layer: [{ transform: [filterKind(kind)], mark: { type: "line", strokeWidth: 1.5 }, encoding }, ...extra],
  };
}

function telemetryCaption(data: TelemetryData, cases: number, drawn: number): string[] {
  return [
    `The client host during the repetitions of the chart above, on its clock (seconds from each repetition's start)${data.repetitions > 1 ? `: the mean of each time bin over ${data.repetitions} repetitions` : ""}.`,
    "CPU: busy (user + system, solid) and waiting for I/O (iowait, dashed), as % of all cores. Network: each interface's received (rx, solid) and sent (tx, dashed) bytes per second.",
    ...(data.left.length > 0
      ? [
          `Not drawn: ${data.left.join(", ")} (loopback is drawn when it carries most of the traffic or a limit names it; an interface with under 1% of the busiest one's traffic is not; at most the ${MAX_INTERFACES} busiest are).`,
        ]
      : []),
    ...(drawn < cases ? [`Only the first ${drawn} of the ${cases} cases of the chart above are drawn.`] : []),
  ];
}
