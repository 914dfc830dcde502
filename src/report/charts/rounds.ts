/**
 * Rounds to steady state, drawn as SNIA PTS reports draw them: the convergence plot (every case's tracked
 * metric per round, the measurement window shaded) and the measurement-window plot (the tracked value in
 * each round of the window, its average, the ±excursion band around it and the fitted least-squares line).
 * Both say whether steady state was reached. Each target's rounds are judged on their own, so each target
 * of the workload has its own pair of plots.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import type { RoundsSummary } from "../../results/rounds-summary.js";
import type { WorkloadView } from "../view.js";
import {
  HEIGHT,
  LIMIT_COLOR,
  metricAxisTitle,
  round,
  unitFor,
  WIDTH,
  type Chart,
  type VlSpec,
} from "./common.js";

export function roundsCharts(view: WorkloadView, id: () => string): Chart[] {
  return view.entries
    .map((e) => e.run)
    .filter((run, i, runs) => runs.indexOf(run) === i)
    .flatMap((run) =>
      Object.values(run.rounds?.[view.name] ?? {}).flatMap((rounds) => {
        if (rounds.values.length === 0) return [];
        const suffix = view.multiRun ? ` (${run.label})` : "";
        const name = `${view.name} on ${rounds.target}`;
        return [
          convergenceChart(view.name, name, rounds, suffix, id()),
          windowChart(view.name, name, rounds, suffix, id()),
        ].filter((chart): chart is Chart => chart !== undefined);
      }),
    );
}

/** "steady state reached in round 7 (window: rounds 3–7)", or why not. */
export function roundsVerdict(rounds: RoundsSummary): string {
  const window = rounds.window
    ? ` (measurement window: rounds ${rounds.window.first}–${rounds.window.last})`
    : "";
  switch (rounds.status) {
    case "steady":
      return `Steady state reached in round ${rounds.rounds}${window}.`;
    case "not reached":
      return `Steady state NOT reached in ${rounds.criteria.max} rounds${window}: the figures are of the last ${rounds.criteria.window} rounds.`;
    case "incomplete":
      return `The rounds stopped after round ${rounds.rounds} (interrupted, or the tracked case failed): steady state not judged${window}.`;
  }
}

/** `name` is the title's: the workload and the target its rounds ran on. */
function convergenceChart(
  workload: string,
  name: string,
  rounds: RoundsSummary,
  suffix: string,
  chartId: string,
): Chart {
  const { metric } = rounds.track;
  const unit = unitFor(
    metric,
    rounds.values.map((v) => v.value),
  );
  const rows = rounds.values.map((v) => ({
    k: "value",
    round: v.round,
    case: v.case,
    tracked: v.case === rounds.track.case,
    y: round(v.value / unit.factor),
  }));
  const window = rounds.window && [
    { k: "window", x0: rounds.window.first - 0.5, x1: rounds.window.last + 0.5 },
  ];
  const title = `${name}: steady-state convergence${suffix}`;
  const x = { field: "round", type: "quantitative", title: "round", axis: { tickMinStep: 1, format: "d" } };
  const layers: VlSpec[] = [
    ...(window
      ? [
          {
            data: { values: window },
            mark: { type: "rect", color: "#9ecae1", opacity: 0.25 },
            encoding: { x: { field: "x0", type: "quantitative" }, x2: { field: "x1" } },
          },
        ]
      : []),
    {
      data: { values: rows },
      mark: { type: "line", point: true },
      encoding: {
        x,
        y: { field: "y", type: "quantitative", title: metricAxisTitle(metric, unit) },
        // Every case in the legend: Vega drops entries past 30 (a PTS matrix has 56) with a warning.
        color: {
          field: "case",
          type: "nominal",
          title: "case",
          legend: { symbolLimit: new Set(rounds.values.map((v) => v.case)).size },
        },
        strokeWidth: {
          field: "tracked",
          type: "ordinal",
          scale: { domain: [true, false], range: [3, 1.2] },
          legend: null,
        },
        tooltip: [
          { field: "case" },
          { field: "round" },
          { field: "y", title: `${METRIC_INFO[metric].title} (${unit.unit})` },
        ],
      },
    },
  ];
  return {
    id: chartId,
    kind: "rounds",
    workload,
    title,
    caption: [
      `Each line is one case's ${METRIC_INFO[metric].title} in each round (every round runs every case once); the thick line is the tracked case, ${rounds.track.case}. The shaded rounds are the measurement window: the cases' figures are their means over it.`,
      roundsVerdict(rounds),
    ],
    points: rows.length,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: { text: title, anchor: "start" },
      width: WIDTH,
      height: HEIGHT,
      layer: layers,
    },
  };
}

function windowChart(
  workload: string,
  name: string,
  rounds: RoundsSummary,
  suffix: string,
  chartId: string,
): Chart | undefined {
  const w = rounds.window;
  if (!w) return undefined;
  const { metric } = rounds.track;
  const unit = unitFor(metric, [...w.values, w.average * (1 + rounds.criteria.excursion / 200)]);
  const scale = (value: number) => round(value / unit.factor);
  const half = rounds.criteria.excursion / 200;
  const values = w.values.map((value, i) => ({ round: w.first + i, y: scale(value) }));
  const fitted = [w.first, w.last].map((r) => ({ round: r, y: scale(w.slope * r + w.intercept) }));
  const reference = [w.first, w.last].map((r) => ({
    round: r,
    average: scale(w.average),
    low: scale(w.average * (1 - half)),
    high: scale(w.average * (1 + half)),
  }));
  const title = `${name}: measurement window${suffix}`;
  const x = { field: "round", type: "quantitative", title: "round", axis: { tickMinStep: 1, format: "d" } };
  const y = { type: "quantitative", title: metricAxisTitle(metric, unit) };
  const pct = (value: number) => `${round((value / Math.abs(w.average)) * 100)}%`;
  return {
    id: chartId,
    kind: "rounds",
    workload,
    title,
    caption: [
      `The tracked ${METRIC_INFO[metric].title} of ${rounds.track.case} in the window's rounds (points), their average (solid), the band of ±${rounds.criteria.excursion / 2}% around it (the data excursion allowed: max − min ≤ ${rounds.criteria.excursion}% of the average) and the least-squares line (dashed; its rise over the window may be at most ${rounds.criteria.slope}% of the average).`,
      `Here: max − min = ${pct(w.range)} of the average (allowed ${rounds.criteria.excursion}%), the fitted rise = ${pct(w.slopeExcursion)} (allowed ${rounds.criteria.slope}%).`,
      roundsVerdict(rounds),
    ],
    points: values.length + fitted.length + reference.length,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: { text: title, anchor: "start" },
      width: WIDTH,
      height: HEIGHT,
      layer: [
        {
          data: { values: reference },
          mark: { type: "area", color: "#9ecae1", opacity: 0.3 },
          encoding: { x, y: { ...y, field: "low" }, y2: { field: "high" } },
        },
        {
          data: { values: reference },
          mark: { type: "line", color: "#08519c" },
          encoding: { x, y: { ...y, field: "average" } },
        },
        {
          data: { values: fitted },
          mark: { type: "line", color: LIMIT_COLOR, strokeDash: [6, 4] },
          encoding: { x, y: { ...y, field: "y" } },
        },
        {
          data: { values },
          mark: { type: "point", filled: true, size: 60, color: "#000" },
          encoding: {
            x,
            y: { ...y, field: "y" },
            tooltip: [{ field: "round" }, { field: "y", title: unit.unit }],
          },
        },
      ],
    },
  };
}
