/**
 * NDJSON files of rows (results.ndjson, timeseries.ndjson, what a compiled script printed). Rows are
 * written as they are measured: each is appended and handed to the OS at once, so a crash loses at most
 * the line being written. Every reader here shares one line scanner and so one tolerance:
 *   - a torn last line (unterminated or unparsable) is skipped; a broken line before the end is an error,
 *   - lines that are not JSON objects at all (progress text a user redirected into the file along with a
 *     compiled script's rows) are counted and skipped.
 * Lines are split on the bytes and decoded one by one (a "\n" byte is never part of a multi-byte UTF-8
 * character): several times faster than decoding whole chunks and splitting the string.
 *
 * Readers: `readRows` (sync, all rows in memory: a run's own files), `readNdjson` (streams a file of any
 * size), `scanNdjson` (a byte range of a file, reporting a broken line instead of throwing, so that the
 * ranges `lineRanges` cuts can be scanned on several threads and put together with `joinScans`).
 */
import { appendFileSync, createReadStream, existsSync, readFileSync, truncateSync } from "node:fs";
import { open } from "node:fs/promises";
import { BenchspecError } from "../platform/errors.js";

export function appendRow(file: string, row: unknown): void {
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/** Cuts a torn last line off before more rows are appended (resume). */
export function repairTail(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file, "utf8");
  if (text === "" || text.endsWith("\n")) return;
  truncateSync(file, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
}

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
  /** The first skipped line (from 1). */
  firstSkipped?: number;
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

type OnRow = (row: unknown, line: number) => void;
type Parse = (text: string) => unknown;

export function ndjsonError(file: string, broken: BrokenLine): BenchspecError {
  return new BenchspecError("invalid-input", `${file}:${broken.line}: not a JSON row (${broken.message})`);
}

/** Throws the scan's error if it has one; else the stats of a whole file. */
export function scanStats(file: string, scan: NdjsonScan): NdjsonStats {
  if (scan.error) throw ndjsonError(file, scan.error);
  return { rows: scan.rows, skipped: scan.skipped, tornTail: scan.broken !== undefined };
}

/** Every row of a file, in memory (none when there is no file); the file's own, sync, for a run's loop. */
export function readRows<T = unknown>(file: string): T[] {
  if (!existsSync(file)) return [];
  const rows: T[] = [];
  const scanner = new LineScanner((row) => rows.push(row as T), JSON.parse);
  scanner.push(readFileSync(file));
  scanStats(file, scanner.finish());
  return rows;
}

/** Streams the rows of a file to `onRow`; throws on a broken line before the end. */
export async function readNdjson(
  file: string,
  onRow: OnRow,
  parse: Parse = JSON.parse,
): Promise<NdjsonStats> {
  return scanStats(file, await scanNdjson(file, onRow, parse));
}

/** Line numbers in `onRow` and in the result count from 1 at the start of the range. */
export async function scanNdjson(
  file: string,
  onRow: OnRow,
  parse: Parse = JSON.parse,
  range: ByteRange = {},
): Promise<NdjsonScan> {
  const scanner = new LineScanner(onRow, parse);
  const start = range.start ?? 0;
  if (range.end !== undefined && range.end <= start) return scanner.finish();
  const stream = createReadStream(file, {
    highWaterMark: 1 << 20,
    start,
    ...(range.end !== undefined && { end: range.end - 1 }),
  });
  for await (const chunk of stream) if (!scanner.push(chunk as Buffer)) break;
  return scanner.finish();
}

/**
 * The lines of a file fed to it chunk by chunk, each handled as a row, a skipped line or a broken one.
 * It stops (push returns false) at a broken line that another non-blank line follows.
 */
class LineScanner {
  private readonly scan: NdjsonScan = { rows: 0, skipped: 0, lines: 0, nonBlank: false };
  /** The start of a line that goes on in the next chunk (several chunks for a very long line). */
  private pending: Buffer[] = [];
  private stopped = false;

  constructor(
    private readonly onRow: OnRow,
    private readonly parse: Parse,
  ) {}

  push(chunk: Buffer): boolean {
    let from = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, from)) {
      let text: string;
      if (this.pending.length > 0) {
        this.pending.push(chunk.subarray(0, newline));
        text = Buffer.concat(this.pending).toString("utf8");
        this.pending = [];
      } else {
        text = chunk.toString("utf8", from, newline);
      }
      from = newline + 1;
      if (!this.line(text)) {
        this.stopped = true;
        return false;
      }
    }
    if (from < chunk.length) this.pending.push(chunk.subarray(from));
    return true;
  }

  /** The scan, once the last chunk was pushed: an unterminated last line is a line too. */
  finish(): NdjsonScan {
    if (!this.stopped && this.pending.length > 0) {
      const text = Buffer.concat(this.pending).toString("utf8");
      if (text.trim() !== "") this.line(text);
    }
    this.pending = [];
    return this.scan;
  }

  /** False once a broken line is followed by another non-blank line: the scan ends. */
  private line(text: string): boolean {
    const scan = this.scan;
    scan.lines += 1;
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
      scan.firstSkipped ??= scan.lines;
      return true;
    }
    let row: unknown;
    try {
      row = this.parse(trimmed);
    } catch (error) {
      scan.broken = { line: scan.lines, message: (error as Error).message };
      return true;
    }
    scan.rows += 1;
    this.onRow(row, scan.lines);
    return true;
  }
}

/**
 * About `count` ranges of equal size, each starting after a "\n" (the first at 0); the last has no end:
 * it is read to the end of the file, as a single pass would (a run may still be writing it).
 */
export async function lineRanges(file: string, size: number, count: number): Promise<ByteRange[]> {
  const starts = [0];
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let i = 1; i < count; i += 1) {
      let at = Math.max(Math.floor((size * i) / count), starts[starts.length - 1]!);
      let newline = -1;
      while (newline < 0 && at < size) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
        if (bytesRead === 0) break;
        const found = buffer.subarray(0, bytesRead).indexOf(10);
        if (found >= 0) newline = at + found;
        else at += bytesRead;
      }
      if (newline < 0 || newline + 1 >= size) break;
      starts.push(newline + 1);
    }
  } finally {
    await handle.close();
  }
  return starts.map((start, i) => (i + 1 < starts.length ? { start, end: starts[i + 1]! } : { start }));
}

/**
 * The scans of consecutive ranges (lineRanges) as one scan of the file: line numbers are the file's, and
 * a range's broken last line is an error if a later range has a non-blank line. `use` is called, in file
 * order, for each range whose rows belong to the file's scan, with the number of lines before it.
 */
export function joinScans(
  parts: readonly NdjsonScan[],
  use: (index: number, lineOffset: number) => void,
): NdjsonScan {
  const scan: NdjsonScan = { rows: 0, skipped: 0, lines: 0, nonBlank: false };
  for (const [index, part] of parts.entries()) {
    const offset = scan.lines;
    if (scan.broken && part.nonBlank) {
      scan.error = scan.broken;
      delete scan.broken;
      return scan;
    }
    use(index, offset);
    scan.rows += part.rows;
    scan.skipped += part.skipped;
    if (part.firstSkipped !== undefined) scan.firstSkipped ??= part.firstSkipped + offset;
    scan.lines += part.lines;
    scan.nonBlank ||= part.nonBlank;
    if (part.error) {
      scan.error = { line: part.error.line + offset, message: part.error.message };
      return scan;
    }
    if (part.broken) scan.broken = { line: part.broken.line + offset, message: part.broken.message };
  }
  return scan;
}
