/**
 * Runs over time: per workload and metric, each case's mean with its 95% interval in every run, by the run's
 * start and by the spec's commit; a run that regressed against the one before it (compare's rule) is marked.
 */
import type { CaseTrend, Trend } from "../../results/trend.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import type { Metric } from "../../spec/schema.js";
import {
  FAIL_COLOR,
  MAX_FACETS,
  metricAxisTitle,
  PASS_COLOR,
  unitFor,
  type Chart,
  type VlSpec,
} from "./common.js";
import type { DisplayUnit } from "../format.js";
import { commitLabel, trendRows, TREND_MARKS } from "./trend-data.js";

const MARK_COLORS: Record<(typeof TREND_MARKS)[number], string> = {
  measured: "#4c78a8",
  regression: FAIL_COLOR,
  improvement: PASS_COLOR,
  failed: "#6a1b1a",
};
/** Wide panels: a trend's x axis holds up to a thousand runs. */
const TREND_WIDTH = 820;
const TREND_HEIGHT = 150;
/** Points of all trend charts together: about 3 MB of page. */
export const TREND_MAX_POINTS = 10_000;

export function trendCharts(trend: Trend, id: () => string): Chart[] {
  const groups = new Map<string, CaseTrend[]>();
  for (const c of trend.cases) {
    const key = `${c.workload}\u0000${c.metric}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  // Each chart gets its share of the page's points (at least one case): the live data is about 270 bytes
  // a point, so a thousand runs of 24 cases would be 6 MB of page.
  const share = Math.floor(TREND_MAX_POINTS / groups.size);
  return [...groups.values()].map((cases) => chart(trend, cases, share, id()));
}

/** The first cases of a chart (at most MAX_FACETS) whose points fit in `share`, never none. */
function drawnCases(all: readonly CaseTrend[], share: number): CaseTrend[] {
  const drawn: CaseTrend[] = [];
  let points = 0;
  for (const c of all.slice(0, MAX_FACETS)) {
    points += c.points.length;
    if (drawn.length > 0 && points > share) break;
    drawn.push(c);
  }
  return drawn;
}

/**
 * One chart per workload and metric, its data once: the cases by the runs' start above, by commit below
 * (each where the runs say it), a panel per case with its own scale.
 */
function chart(trend: Trend, all: readonly CaseTrend[], share: number, chartId: string): Chart {
  const { workload, metric } = all[0]!;
  const cases = drawnCases(all, share);
  const unit = unitFor(
    metric,
    cases.flatMap((c) => c.points.flatMap((point) => (point.stats ? [point.stats.mean] : []))),
  );
  // By commit, x is in the order the commits first ran: a number per row (a sort list of a thousand
  // commits would be an expression too deep for Vega's parser).
  const commitOrder = new Map<string, number>();
  for (const point of trend.runs)
    commitOrder.set(commitLabel(point), commitOrder.get(commitLabel(point)) ?? commitOrder.size);
  const runOrder = new Map(trend.runs.map((run, index) => [run.label, index]));
  const rows: VlSpec[] = trendRows(cases, unit).map((row) => ({
    ...row,
    o: commitOrder.get(row.c as string) ?? 0,
    i: runOrder.get(row.r as string) ?? 0,
  }));
  const dated = (["date", "commit"] as const).filter((by) =>
    rows.some((row) => (by === "date" ? row.t !== undefined : row.c !== "–")),
  );
  // Results files (a compiled script's) say neither when nor from which commit: the runs in the order given.
  const views: View[] = dated.length > 0 ? dated : ["run"];
  const title = `${workload}: ${METRIC_INFO[metric].title} ${views.map((by) => VIEW_TITLES[by]).join(" and ")}`;
  const order = cases.map((c) => c.case);
  const spec = (drawn: Drawn): VlSpec => {
    const panels = views.map((by) => {
      const layer = layers(metric, unit, by, drawn);
      return cases.length > 1
        ? {
            facet: { field: "f", type: "nominal", title: "case", sort: order, header: { labelLimit: 0 } },
            columns: 1,
            spec: { width: TREND_WIDTH, height: TREND_HEIGHT, layer },
            resolve: { scale: { y: "independent" } },
          }
        : { width: TREND_WIDTH, height: TREND_HEIGHT, layer };
    });
    return {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: { text: title, anchor: "start" },
      data: { values: rows },
      ...(panels.length === 1 ? panels[0] : { vconcat: panels }),
    };
  };
  const where = views.map((by) => VIEW_PLACES[by]).join(", and below ");
  return {
    id: chartId,
    kind: "trend",
    title,
    caption: [
      `The line: each run's mean ${METRIC_INFO[metric].title}, the band its 95% interval (Student's t over its repetitions), ${where}. A run is red when it regressed against the run before it that measured the case, by compare's rule: its median changed by more than ${trend.options.threshold * 100}% in the bad direction, significantly (Mann–Whitney p < ${trend.options.alpha}, or with too few repetitions for that test, a bootstrap interval that excludes 0); green when it improved so; dark red when repetitions failed. Each panel has its own scale; with JavaScript, every run is a point with its figures.`,
      ...(all.length > cases.length
        ? [
            `Only the first ${cases.length} of ${all.length} cases are drawn (the page holds ${TREND_MAX_POINTS.toLocaleString("en-US")} points of trends); the tables below have every case.`,
          ]
        : []),
    ],
    points: rows.length,
    spec: spec("live"),
    image: spec("image"),
  };
}

/** What a spec is drawn as: live in the page (every run a point), or the pre-rendered image. */
type Drawn = "live" | "image";

/** What x is: the run's start, the spec's commit, or (neither known) the run in the order given. */
type View = "date" | "commit" | "run";
const VIEW_TITLES: Record<View, string> = { date: "over time", commit: "by commit", run: "by run" };
const VIEW_PLACES: Record<View, string> = {
  date: "at the run's start",
  commit: "at the commit of the spec's repository the run was made from (* the spec differed from it)",
  run: "in the order the runs were given (they say neither when they ran nor from which commit)",
};

function layers(metric: Metric, unit: DisplayUnit, by: View, drawn: Drawn): VlSpec[] {
  const x: VlSpec =
    by === "run"
      ? {
          field: "r",
          type: "ordinal",
          title: "run",
          sort: { field: "i", op: "min" },
          axis: { labelAngle: -60, labelOverlap: true, ticks: false },
        }
      : by === "date"
        ? {
            field: "t",
            type: "temporal",
            title: "run start (UTC)",
            // The runs' instants are UTC; the page shows them so on any reader's clock.
            scale: { type: "utc" },
            // 24-hour labels at whatever scale the runs span (Vega's own default reads 10:45 for 22:45).
            axis: {
              labelAngle: -30,
              format: {
                year: "%Y",
                quarter: "%Y-%m",
                month: "%Y-%m",
                week: "%Y-%m-%d",
                date: "%Y-%m-%d",
                hours: "%m-%d %H:%M",
                minutes: "%H:%M",
                seconds: "%H:%M:%S",
                milliseconds: "%H:%M:%S.%L",
              },
            },
          }
        : {
            field: "c",
            type: "ordinal",
            title: "commit of the spec's repository",
            sort: { field: "o", op: "min" },
            axis: { labelAngle: -60, labelOverlap: true, ticks: false },
          };
  const y: VlSpec = {
    field: "y",
    type: "quantitative",
    title: metricAxisTitle(metric, unit),
    scale: { zero: false },
  };
  const domain = [...TREND_MARKS];
  // One path for the band and one for the line, whatever the number of runs; a point per run only where
  // it can be pointed at (in the image, the runs marked and each case's ends): a thousand runs of points
  // made images of MBs.
  return [
    {
      mark: { type: "area", color: "#4c78a8", opacity: 0.2 },
      encoding: {
        x,
        y: { ...y, field: "lo" },
        y2: { field: "hi" },
      },
    },
    {
      mark: { type: "line", color: "#4c78a8", strokeWidth: 1 },
      encoding: { x, y },
    },
    {
      ...(drawn === "image" && { transform: [{ filter: { field: "e", equal: 1 } }] }),
      mark: { type: "point", filled: true, size: drawn === "image" ? 40 : 20 },
      encoding: {
        x,
        y,
        color: {
          field: "st",
          type: "nominal",
          title: "against the run before",
          scale: { domain, range: domain.map((mark) => MARK_COLORS[mark]) },
        },
        tooltip: [
          { field: "r", title: "run" },
          { field: "t", title: "start (UTC)" },
          { field: "c", title: "commit" },
          { field: "m", title: METRIC_INFO[metric].title },
          { field: "v", title: "against the run before" },
        ],
      },
    },
  ];
}
