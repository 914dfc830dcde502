/** The bench table on stdout and bench/results/latest.json. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { BenchLine } from "./lines.js";
import { RESULTS_DIR } from "./paths.js";
import { fmt } from "./stats.js";
import { maxOf } from "../src/rows/stats.js";

export function renderTable(lines: readonly BenchLine[]): string {
  const header = ["metric", "unit", "benchspec", "reference", "ratio", "target", "verdict"];
  const rows: string[][] = [];
  const sectionRows: number[] = [];
  let section = "";
  for (const line of lines) {
    if (line.section !== section) {
      section = line.section;
      sectionRows.push(rows.length);
      rows.push([`[${section}]`, "", "", "", "", "", ""]);
    }
    rows.push([
      `  ${line.metric}`,
      line.unit,
      fmt(line.engine),
      fmt(line.reference),
      line.ratio === undefined ? "" : line.ratio.toFixed(2),
      line.target,
      line.verdict,
    ]);
  }
  const widths = header.map((h, i) =>
    maxOf(
      rows.filter((_, r) => !sectionRows.includes(r)).map((row) => row[i]!.length),
      h.length,
    ),
  );
  const right = new Set([2, 3, 4]);
  const format = (row: string[]) =>
    row
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out = [format(header), widths.map((w) => "-".repeat(w)).join("  ")];
  rows.forEach((row, r) => out.push(sectionRows.includes(r) ? row[0]! : format(row)));
  const notes = lines
    .filter((l) => l.note)
    .map(
      (l) => `  ${l.verdict === "PASS" || l.verdict === "INFO" ? "note" : l.verdict}: ${l.metric}: ${l.note}`,
    );
  return [...out, ...(notes.length ? ["", "Notes:", ...notes] : [])].join("\n");
}

export async function writeResults(document: Record<string, unknown>): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, "latest.json");
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
