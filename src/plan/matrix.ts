/**
 * Matrix semantics of GitHub Actions: the cartesian product of the dimensions, minus every cell that
 * matches an `exclude` entry, then each `include` entry is merged into every original cell it does not
 * contradict, or becomes a new cell when it fits none.
 */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import { sameValue } from "../spec/params.js";
import type { ParamName, ParamValue, PartialParams } from "../spec/schema.js";

export interface Dimension {
  key: ParamName;
  values: readonly ParamValue[];
  /** Where the list was written, for diagnostics about one of its values. */
  path: SpecPath;
}

export interface Cell {
  values: Partial<Record<ParamName, ParamValue>>;
  /** Per value: the spec path it came from and whether it was a matrix dimension or an include. */
  origins: Partial<Record<ParamName, { path: SpecPath; source: "matrix" | "include" }>>;
}

export function expandMatrix(
  dimensions: readonly Dimension[],
  exclude: readonly PartialParams[],
  include: readonly PartialParams[],
  includePath: SpecPath,
): Cell[] {
  let cells: Cell[] = [{ values: {}, origins: {} }];
  for (const dimension of dimensions) {
    cells = cells.flatMap((cell) =>
      dimension.values.map((value, index) => ({
        values: { ...cell.values, [dimension.key]: value },
        origins: {
          ...cell.origins,
          [dimension.key]: { path: [...dimension.path, index], source: "matrix" as const },
        },
      })),
    );
  }
  cells = cells.filter((cell) => !exclude.some((entry) => matches(cell, entry)));
  if (dimensions.length === 0) cells = include.length > 0 ? [] : cells;

  const dimensionKeys = new Set(dimensions.map((d) => d.key));
  const original = [...cells];
  include.forEach((entry, index) => {
    const entries = Object.entries(entry) as [ParamName, ParamValue][];
    const fits = (cell: Cell) =>
      entries.every(([key, value]) => !dimensionKeys.has(key) || sameValue(cell.values[key], value));
    let merged = false;
    for (const cell of original) {
      if (dimensions.length === 0 || !fits(cell)) continue;
      merged = true;
      for (const [key, value] of entries) {
        if (dimensionKeys.has(key)) continue;
        cell.values[key] = value;
        cell.origins[key] = { path: [...includePath, index, key], source: "include" };
      }
    }
    if (!merged) {
      cells.push({
        values: { ...entry },
        origins: Object.fromEntries(
          entries.map(([key]) => [key, { path: [...includePath, index, key], source: "include" as const }]),
        ),
      });
    }
  });
  return cells;
}

function matches(cell: Cell, entry: PartialParams): boolean {
  return Object.entries(entry).every(([key, value]) => sameValue(cell.values[key as ParamName], value));
}
