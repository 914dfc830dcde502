/**
 * NDJSON files written as they are measured: each row is appended and handed to the OS at once, so a
 * crash loses at most the line being written; every reader tolerates that torn last line.
 */
import { appendFileSync, readFileSync, truncateSync, existsSync } from "node:fs";

export function appendRow(file: string, row: unknown): void {
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/** Rows of an NDJSON file; a torn (unterminated or unparsable) last line is skipped. */
export function readRows<T = unknown>(file: string): T[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8").split("\n");
  const rows: T[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      rows.push(JSON.parse(line) as T);
    } catch (error) {
      if (index < lines.length - 1 && lines.slice(index + 1).some((rest) => rest.trim() !== "")) {
        throw new Error(`${file}:${index + 1}: not a JSON row (${(error as Error).message})`);
      }
    }
  });
  return rows;
}

/** Cuts a torn last line off before more rows are appended (resume). */
export function repairTail(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file, "utf8");
  if (text === "" || text.endsWith("\n")) return;
  truncateSync(file, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
}
