/** Facets ("panels") of a chart: one per combination of the facet dimensions, at most MAX_FACETS drawn. */
import { compositeLabel, compositeOrder, type Entry } from "../view.js";
import { MAX_FACETS } from "./common.js";

export interface Panels {
  /** The panels drawn, in order. */
  order: string[];
  /** How many panels there are before the cut. */
  total: number;
  /** The entries in the panels drawn. */
  shown: Entry[];
  /** An entry's panel as the `f` field of its rows (none when the chart is not faceted). */
  field: (e: Entry) => { f?: string };
  /** The panels a limit is drawn in: each one, or the single unfaceted chart. */
  limitFacets: (string | undefined)[];
  /** The facet of the composed chart, when faceted. */
  facet?: { title: string; order: string[] };
}

export function panelsOf(entries: readonly Entry[], dims: readonly string[]): Panels {
  const all = compositeOrder(entries, dims);
  const order = all.slice(0, MAX_FACETS);
  const keep = new Set(order);
  const faceted = dims.length > 0;
  return {
    order,
    total: all.length,
    shown: all.length > MAX_FACETS ? entries.filter((e) => keep.has(compositeLabel(e, dims))) : [...entries],
    field: (e) => (faceted ? { f: compositeLabel(e, dims) } : {}),
    limitFacets: faceted ? order : [undefined],
    ...(faceted && { facet: { title: dims.join(" · "), order } }),
  };
}
