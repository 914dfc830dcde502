/**
 * Streams an NDJSON file row by row without holding the file (a million rows are several hundred MB) or
 * an array of its rows in memory. Same tolerance as results/ndjson.ts `readRows`: a torn last line is
 * skipped; a broken line before the end is an error. Lines that are not JSON objects at all (progress text
 * a user redirected into the file along with a compiled script's rows) are counted and skipped.
 *
 * Lines are split on the bytes and decoded one by one (a "\n" byte is never part of a multi-byte UTF-8
 * character): several times faster than decoding whole chunks and splitting the string. `scanNdjson` reads
 * a byte range of a file too (rows-threads.ts: ranges that start after a "\n", scanned on several threads)
 * and reports a broken line instead of throwing, so that ranges can be put together as one file.
 */
import { createReadStream } from "node:fs";
import { BenchspecError } from "../platform/errors.js";

export interface NdjsonStats {
  rows: number;
  /** Lines that do not start with "{" (not rows). */
  skipped: number;
  /** The unterminated last line that did not parse (a run interrupted mid-write). */
  tornTail: boolean;
}

/** A line that did not parse: its number (from 1, within what was scanned) and JSON.parse's message. */
export interface BrokenLine {
  line: number;
  message: string;
}

/** What a scan of a file (or of a byte range of it) saw. */
export interface NdjsonScan {
  rows: number;
  skipped: number;
  /** Lines seen, blank ones included (for a range that ends after a "\n": its number of "\n"). */
  lines: number;
  /** Whether any line was not blank. */
  nonBlank: boolean;
  /** The last non-blank line, when it did not parse: a torn tail if nothing but blank lines follows it. */
  broken?: BrokenLine;
  /** A line that did not parse and was followed by another non-blank line: the scan stopped there. */
  error?: BrokenLine;
}

/** A byte range of a file: `start` inclusive, `end` exclusive (the end of the file when absent). */
export interface ByteRange {
  start?: number;
  end?: number;
}

export function ndjsonError(file: string, broken: BrokenLine): BenchspecError {
  return new BenchspecError("invalid-input", `${file}:${broken.line}: not a JSON row (${broken.message})`);
}

/** Throws the scan's error if it has one; else the stats of a whole file. */
export function scanStats(file: string, scan: NdjsonScan): NdjsonStats {
  if (scan.error) throw ndjsonError(file, scan.error);
  return { rows: scan.rows, skipped: scan.skipped, tornTail: scan.broken !== undefined };
}

export async function readNdjson(
  file: string,
  onRow: (row: unknown, line: number) => void,
  parse: (text: string) => unknown = JSON.parse,
): Promise<NdjsonStats> {
  return scanStats(file, await scanNdjson(file, onRow, parse));
}

/** Line numbers in `onRow` and in the result count from 1 at the start of the range. */
export async function scanNdjson(
  file: string,
  onRow: (row: unknown, line: number) => void,
  parse: (text: string) => unknown = JSON.parse,
  range: ByteRange = {},
): Promise<NdjsonScan> {
  const scan: NdjsonScan = { rows: 0, skipped: 0, lines: 0, nonBlank: false };
  let line = 0;

  /** False once a broken line is followed by another non-blank line: the scan ends. */
  const handle = (text: string): boolean => {
    line += 1;
    const trimmed = text.trim();
    if (trimmed === "") return true;
    scan.nonBlank = true;
    if (scan.broken) {
      scan.error = scan.broken;
      delete scan.broken;
      return false;
    }
    if (trimmed[0] !== "{") {
      scan.skipped += 1;
      return true;
    }
    let row: unknown;
    try {
      row = parse(trimmed);
    } catch (error) {
      scan.broken = { line, message: (error as Error).message };
      return true;
    }
    scan.rows += 1;
    onRow(row, line);
    return true;
  };

  const start = range.start ?? 0;
  if (range.end !== undefined && range.end <= start) return scan;
  const stream = createReadStream(file, {
    highWaterMark: 1 << 20,
    start,
    ...(range.end !== undefined && { end: range.end - 1 }),
  });
  // The start of a line that goes on in the next chunk (several chunks for a very long line).
  let pending: Buffer[] = [];
  let ended = false;
  read: for await (const data of stream) {
    const chunk = data as Buffer;
    let from = 0;
    let newline = chunk.indexOf(10);
    if (pending.length > 0) {
      if (newline < 0) {
        pending.push(chunk);
        continue;
      }
      pending.push(chunk.subarray(0, newline));
      const text = Buffer.concat(pending).toString("utf8");
      pending = [];
      if (!handle(text)) {
        ended = true;
        break;
      }
      from = newline + 1;
      newline = chunk.indexOf(10, from);
    }
    while (newline >= 0) {
      if (!handle(chunk.toString("utf8", from, newline))) {
        ended = true;
        break read;
      }
      from = newline + 1;
      newline = chunk.indexOf(10, from);
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (!ended && pending.length > 0) {
    const text = Buffer.concat(pending).toString("utf8");
    if (text.trim() !== "") handle(text);
  }
  scan.lines = line;
  return scan;
}
