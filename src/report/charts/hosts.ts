/**
 * Throughput or IOPS over time per host (or per target), for cases run on several at once: in each case's
 * panel a line per host or target (its own rate, on the common clock) and a black line for all of them
 * summed — one that started late, stalled or finished early shows as its line apart from the others'.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import { partFigures } from "../hosts.js";
import type { SeriesAgg } from "../model.js";
import type { Entry, WorkloadView } from "../view.js";
import { filterKind, metricAxisTitle, round, unitFor, type Chart, type VlSpec } from "./common.js";
import { panelChart } from "./compose.js";
import { panelsCaption, panelsOf } from "./panels.js";
import { seriesOf } from "./timeseries-data.js";
import { maxOf } from "../../rows/stats.js";

const SUM_COLOR = "#222";
/** Cases drawn at most: each has a series per host besides its sum. */
const MAX_CASES = 12;

const hostSeries = (e: Entry): SeriesAgg[] =>
  e.c.hosts ? e.run.series.filter((s) => s.case === e.c.id && s.host !== undefined) : [];

export function hostsChart(view: WorkloadView, y: "throughput" | "iops", id: string): Chart | undefined {
  const entries = view.entries.filter((e) =>
    hostSeries(e).some((s) => s.points.some((p) => p[y] !== undefined)),
  );
  if (entries.length === 0) return undefined;
  const by = entries[0]!.c.hosts!.by;
  const panels = panelsOf(entries, entries.length > 1 ? ["case"] : [], MAX_CASES);
  const drawn = panels.shown.flatMap((e) => {
    const sum = seriesOf(e);
    return [
      ...hostSeries(e).map((s) => ({ e, s, kind: "host", label: s.host! })),
      ...(sum ? [{ e, s: sum, kind: "sum", label: `all ${by}s (sum)` }] : []),
    ];
  });
  const unit = unitFor(
    y,
    drawn.flatMap(({ s }) => s.points.flatMap((p) => (p[y] === undefined ? [] : [p[y]]))),
  );
  const rows: VlSpec[] = drawn.flatMap(({ e, s, kind, label }) =>
    s.points.flatMap((p) =>
      p[y] === undefined
        ? []
        : [{ k: kind, t: round(p.t), y: round(p[y] / unit.factor), h: label, ...panels.field(e) }],
    ),
  );
  const hostOrder = [...new Set(panels.shown.flatMap((e) => e.c.hosts!.hosts.map((h) => h.host)))];
  const yTitle = metricAxisTitle(y, unit);
  const x = { field: "t", type: "quantitative", title: "time (s)", scale: { zero: true } };
  const tooltip = [
    { field: "h", title: by },
    { field: "t", title: "t (s)" },
    { field: "y", title: yTitle },
  ];
  const line = (kind: string, mark: VlSpec, color: VlSpec): VlSpec[] => [
    {
      transform: [filterKind(kind)],
      mark: { type: "line", interpolate: "linear", ...mark },
      encoding: { x, y: { field: "y", type: "quantitative", title: yTitle }, color, tooltip },
    },
    {
      transform: [filterKind(kind)],
      mark: {
        type: "point",
        filled: true,
        size: 12,
        opacity: 1,
        ...(mark.color ? { color: mark.color } : {}),
      },
      encoding: { x, y: { field: "y", type: "quantitative" }, color, tooltip },
    },
  ];
  const hostColor = {
    field: "h",
    type: "nominal",
    title: by,
    sort: hostOrder,
    legend: { symbolType: "stroke", symbolStrokeWidth: 2, symbolOpacity: 1 },
  };
  const title = `${view.name}: ${METRIC_INFO[y].title} per ${by} over time`;
  const repetitions = maxOf(drawn.map(({ s }) => s.repetitions));
  return panelChart(id, "hosts", view, {
    title,
    caption: [
      `Coloured lines: each ${by}'s own ${METRIC_INFO[y].title} on the common clock (seconds since the earliest ${by}'s start); black line: all ${by}s summed per sampling interval.${repetitions > 1 ? ` Each point is the mean of its time bin over ${repetitions} repetitions.` : ""}`,
      `A line that begins late is a ${by} that started late (start spread: ${partFigures(by).spread}).`,
      ...panelsCaption(panels),
    ],
    rows,
    layers: [
      ...line("host", { strokeWidth: 1.5 }, hostColor),
      ...line("sum", { strokeWidth: 2.5, color: SUM_COLOR }, { value: SUM_COLOR }),
    ],
    panels,
  });
}
