/** The Vega-Lite spec of a chart, assembled from its title, its one inline data set and its layers. */
import type { WorkloadView } from "../view.js";
import {
  FACET_COLUMNS,
  FACET_HEIGHT,
  FACET_WIDTH,
  HEIGHT,
  WIDTH,
  type Chart,
  type ChartKind,
  type VlSpec,
} from "./common.js";
import type { Panels } from "./panels.js";

/**
 * A layered chart, faceted when `facet` is given: facet + spec.layer, every layer filtering its kind of
 * row from the one inline data set.
 */
export function compose(options: {
  title: string;
  subtitle?: string;
  rows: VlSpec[];
  layers: VlSpec[];
  facet?: { title: string; order: string[] };
  width?: number;
  height?: number;
}): VlSpec {
  const title = {
    text: options.title,
    anchor: "start",
    ...(options.subtitle && { subtitle: options.subtitle }),
  };
  const base = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values: options.rows },
  };
  if (options.facet) {
    return {
      ...base,
      facet: {
        field: "f",
        type: "nominal",
        title: options.facet.title,
        sort: options.facet.order,
        header: { labelLimit: 240 },
      },
      columns: Math.min(FACET_COLUMNS, options.facet.order.length),
      spec: {
        width: options.width ?? FACET_WIDTH,
        height: options.height ?? FACET_HEIGHT,
        layer: options.layers,
      },
    };
  }
  return {
    ...base,
    width: options.width ?? WIDTH,
    height: options.height ?? HEIGHT,
    layer: options.layers,
  };
}

/** A workload's chart of one data set drawn in its panels (faceted when the panels are). */
export function panelChart(
  id: string,
  kind: ChartKind,
  view: WorkloadView,
  chart: { title: string; caption: string[]; rows: VlSpec[]; layers: VlSpec[]; panels: Panels },
): Chart {
  const { title, caption, rows, layers, panels } = chart;
  return {
    id,
    kind,
    workload: view.name,
    title,
    caption,
    points: rows.length,
    spec: compose({ title, rows, layers, ...(panels.facet && { facet: panels.facet }) }),
  };
}
