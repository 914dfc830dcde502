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
import {
  appendFileSync,
  closeSync,
  createReadStream,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  truncateSync,
  writeSync,
} from "node:fs";
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

/** A row, its line number and where its line is in the file: the byte offset and length (without "\n"). */
type OnRow = (row: unknown, line: number, offset: number, bytes: number) => void;
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
  const start = range.start ?? 0;
  const scanner = new LineScanner(onRow, parse, start);
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
  private pendingBytes = 0;
  private stopped = false;

  /** `offset`: where in the file the first chunk starts. */
  constructor(
    private readonly onRow: OnRow,
    private readonly parse: Parse,
    private offset = 0,
  ) {}

  push(chunk: Buffer): boolean {
    let from = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, from)) {
      let text: string;
      let start = this.offset + from;
      let bytes = newline - from;
      if (this.pending.length > 0) {
        this.pending.push(chunk.subarray(0, newline));
        text = Buffer.concat(this.pending).toString("utf8");
        start -= this.pendingBytes;
        bytes += this.pendingBytes;
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        text = chunk.toString("utf8", from, newline);
      }
      from = newline + 1;
      if (!this.line(text, start, bytes)) {
        this.stopped = true;
        return false;
      }
    }
    if (from < chunk.length) {
      this.pending.push(chunk.subarray(from));
      this.pendingBytes += chunk.length - from;
    }
    this.offset += chunk.length;
    return true;
  }

  /** The scan, once the last chunk was pushed: an unterminated last line is a line too. */
  finish(): NdjsonScan {
    if (!this.stopped && this.pending.length > 0) {
      const text = Buffer.concat(this.pending).toString("utf8");
      if (text.trim() !== "") this.line(text, this.offset - this.pendingBytes, this.pendingBytes);
    }
    this.pending = [];
    return this.scan;
  }

  /** False once a broken line is followed by another non-blank line: the scan ends. */
  private line(text: string, offset: number, bytes: number): boolean {
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
    this.onRow(row, scan.lines, offset, bytes);
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

/**
 * Lines read back by their place (scanNdjson's offset and length), for files too large to keep in memory:
 * going forward, a window of the file is read at once (lines read in about file order cost one read per
 * window); a jump elsewhere reads a little only.
 */
export class PlacedLines {
  private readonly fd: number;
  private buffer = Buffer.alloc(0);
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    readonly file: string,
    private readonly windowBytes = 4 << 20,
  ) {
    this.fd = openSync(file, "r");
  }

  text(offset: number, bytes: number): string {
    const at = offset - this.windowStart;
    if (at < 0 || at + bytes > this.window.length) {
      const end = this.windowStart + this.window.length;
      const forward = offset >= end && offset - end < this.windowBytes;
      const size = Math.max(bytes, forward ? this.windowBytes : 64 << 10);
      // One buffer, read into again (lines leave it as strings): a new one per window piled up unfreed.
      if (this.buffer.length < size) this.buffer = Buffer.allocUnsafe(size);
      const read = readSync(this.fd, this.buffer, 0, size, offset);
      this.window = this.buffer.subarray(0, read);
      this.windowStart = offset;
      if (read < bytes) throw new BenchspecError("invalid-input", `${this.file} changed while it was read`);
      return this.window.toString("utf8", 0, bytes);
    }
    return this.window.toString("utf8", at, at + bytes);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** An NDJSON file written row by row, in writes of a megabyte or so. */
export class NdjsonWriter {
  private readonly fd: number;
  private buffered: string[] = [];
  private size = 0;
  /** Reused for every write. */
  private bytes = Buffer.alloc(0);

  constructor(file: string) {
    this.fd = openSync(file, "w");
  }

  write(row: unknown): void {
    const line = `${JSON.stringify(row)}\n`;
    this.buffered.push(line);
    this.size += line.length;
    if (this.size >= 1 << 20) this.flush();
  }

  /** Writes what is buffered and closes the file. */
  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    const text = this.buffered.join("");
    const length = Buffer.byteLength(text);
    if (this.bytes.length < length) this.bytes = Buffer.allocUnsafe(Math.max(length, 2 << 20));
    this.bytes.write(text);
    for (let at = 0; at < length;) at += writeSync(this.fd, this.bytes, at, length - at);
    this.buffered = [];
    this.size = 0;
  }
}
