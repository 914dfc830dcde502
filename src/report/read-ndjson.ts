/**
 * Streams an NDJSON file row by row without holding the file (a million rows are several hundred MB) or
 * an array of its rows in memory. Same tolerance as results/ndjson.ts `readRows`: a torn last line is
 * skipped; a broken line before the end is an error. Lines that are not JSON objects at all (progress text
 * a user redirected into the file along with a compiled script's rows) are counted and skipped.
 */
import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export interface NdjsonStats {
  rows: number;
  /** Lines that do not start with "{" (not rows). */
  skipped: number;
  /** The unterminated last line that did not parse (a run interrupted mid-write). */
  tornTail: boolean;
}

export class NdjsonError extends Error {}

export async function readNdjson(
  file: string,
  onRow: (row: unknown, line: number) => void,
  parse: (text: string) => unknown = JSON.parse,
): Promise<NdjsonStats> {
  const stats: NdjsonStats = { rows: 0, skipped: 0, tornTail: false };
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let line = 0;
  // A line that failed to parse is an error only if another row follows it.
  let broken: { line: number; message: string } | undefined;

  const handle = (text: string) => {
    line += 1;
    const trimmed = text.trim();
    if (trimmed === "") return;
    if (broken) throw new NdjsonError(`${file}:${broken.line}: not a JSON row (${broken.message})`);
    if (trimmed[0] !== "{") {
      stats.skipped += 1;
      return;
    }
    let row: unknown;
    try {
      row = parse(trimmed);
    } catch (error) {
      broken = { line, message: (error as Error).message };
      return;
    }
    stats.rows += 1;
    onRow(row, line);
  };

  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = pending + decoder.write(chunk as Buffer);
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      handle(text.slice(start, end));
      start = end + 1;
    }
    pending = text.slice(start);
  }
  pending += decoder.end();
  if (pending.trim() !== "") handle(pending);
  if (broken) stats.tornTail = true;
  return stats;
}
