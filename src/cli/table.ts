import { maxOf } from "../rows/stats.js";

/** A plain text table: columns padded to their widest cell, nothing else. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    maxOf(
      rows.map((row) => (row[column] ?? "").length),
      title.length,
    ),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
