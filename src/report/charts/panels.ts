/**
 * Facets ("panels") of a chart: one per combination of the facet dimensions. At most MAX_FACETS are
 * drawn, and no more cases than a chart's budget (MAX_CHART_ENTRIES): the page stays a few MB however many
 * cases a run has, and the tables and the CSV list every case.
 */
import { compositeLabel, compositeOrder, type Entry } from "../view.js";
import { MAX_CHART_ENTRIES, MAX_FACETS } from "./common.js";

export interface Panels {
  /** The panels drawn, in order. */
  order: string[];
  /** How many panels there are before the cut. */
  total: number;
  /** The entries in the panels drawn. */
  shown: Entry[];
  /** How many entries there are before the cut. */
  entries: number;
  /** An entry's panel as the `f` field of its rows (none when the chart is not faceted). */
  field: (e: Entry) => { f?: string };
  /** The panels a limit is drawn in: each one, or the single unfaceted chart. */
  limitFacets: (string | undefined)[];
  /** The facet of the composed chart, when faceted. */
  facet?: { title: string; order: string[] };
}

/** `budget`: the most entries drawn (the first panels that hold no more; at least one panel). */
export function panelsOf(
  entries: readonly Entry[],
  dims: readonly string[],
  budget: number = MAX_CHART_ENTRIES,
): Panels {
  const faceted = dims.length > 0;
  if (!faceted) {
    return {
      order: [],
      total: 1,
      shown: entries.slice(0, budget),
      entries: entries.length,
      field: () => ({}),
      limitFacets: [undefined],
    };
  }
  const all = compositeOrder(entries, dims);
  const byPanel = new Map<string, Entry[]>();
  for (const e of entries) {
    const label = compositeLabel(e, dims);
    byPanel.set(label, [...(byPanel.get(label) ?? []), e]);
  }
  const order: string[] = [];
  let count = 0;
  for (const label of all) {
    const size = byPanel.get(label)!.length;
    if (order.length === MAX_FACETS || (order.length > 0 && count + size > budget)) break;
    order.push(label);
    count += size;
  }
  const keep = new Set(order);
  return {
    order,
    total: all.length,
    shown: entries.filter((e) => keep.has(compositeLabel(e, dims))),
    entries: entries.length,
    field: (e) => ({ f: compositeLabel(e, dims) }),
    limitFacets: order,
    facet: { title: dims.join(" · "), order },
  };
}

/** The caption's sentence when not every case is drawn. */
export function panelsCaption(panels: Panels): string[] {
  if (panels.shown.length === panels.entries) return [];
  const drawn =
    panels.total > 1
      ? `Only the first ${panels.order.length} of ${panels.total} panels (${panels.shown.length} of ${panels.entries} cases) are drawn`
      : `Only the first ${panels.shown.length} of ${panels.entries} cases are drawn`;
  return [`${drawn}; the tables and the CSV list every case.`];
}
