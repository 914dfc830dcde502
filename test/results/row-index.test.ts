/**
 * Rows read back by their place: scanNdjson's line offsets (over chunk boundaries, multi-byte text and
 * ranges), PlacedLines reading them in any order, and StandingRowIndex standing for readStandingRows over a
 * file it does not hold (what `merge` reads a million rows with), by each line's repetition alone.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlacedLines, scanNdjson } from "../../src/results/ndjson.js";
import { readStandingRows, repetitionKey, StandingRowIndex } from "../../src/results/standing-rows.js";
import { seededRandom } from "../../src/rows/random.js";
import type { ResultRow } from "../../src/rows/row.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "benchspec-row-index-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const row = (caseId: string, repetition: number, ok: boolean, note = ""): ResultRow => ({
  v: 1,
  source: "run",
  spec: "s",
  specHash: "h",
  case: caseId,
  workload: "w",
  target: "t",
  engine: "fio",
  op: "read",
  params: { note },
  repetition,
  warmup: false,
  ok,
  ...(!ok && { error: `failed ${note}` }),
  start: "2026-01-01T00:00:00.000Z",
  end: "2026-01-01T00:00:01.000Z",
  bytes: repetition * 1000,
  ops: repetition,
  seconds: 1,
  throughput: repetition * 1000,
  iops: repetition,
});

describe("lines read back by their place", () => {
  it("scanNdjson gives each row's byte offset and length, across chunks, multi-byte text and ranges", async () => {
    const random = seededRandom(7);
    // Multi-byte characters, blank lines between rows, and lines longer than a read chunk (1 MiB).
    const lines = Array.from({ length: 400 }, (_, i) => {
      const long = i % 97 === 5 ? "x".repeat(1_500_000) : "";
      return JSON.stringify({ i, text: `é€😀 ${long}${"y".repeat(Math.floor(random() * 3000))}` });
    });
    const file = join(dir, "lines.ndjson");
    await writeFile(file, lines.map((line, i) => (i % 11 === 3 ? `${line}\n\n` : `${line}\n`)).join(""));
    const bytes = readFileSync(file);
    for (const start of [0, bytes.indexOf(10, bytes.length >> 1) + 1]) {
      const seen: number[] = [];
      const scan = await scanNdjson(
        file,
        (value, _line, offset, length) => {
          const { i } = value as { i: number };
          expect(bytes.toString("utf8", offset, offset + length)).toBe(lines[i]);
          seen.push(i);
        },
        JSON.parse,
        { start },
      );
      expect(scan.error).toBeUndefined();
      expect(seen.length).toBeGreaterThan(100);
      expect(seen).toEqual(Array.from({ length: seen.length }, (_, k) => seen[0]! + k));
    }
  });

  it("PlacedLines reads lines forward, backward and at random, the long ones whole", async () => {
    const random = seededRandom(11);
    const lines = Array.from({ length: 1200 }, (_, i) =>
      JSON.stringify({ i, pad: "ü".repeat(i % 500 === 0 ? 3_000_000 : Math.floor(random() * 4000)) }),
    );
    const file = join(dir, "placed.ndjson");
    await writeFile(file, lines.map((line) => `${line}\n`).join(""));
    const places: [number, number][] = [];
    await scanNdjson(file, (_value, _line, offset, length) => places.push([offset, length]));
    const reader = new PlacedLines(file, 64 * 1024);
    try {
      const orders = [
        places.map((_, i) => i),
        places.map((_, i) => places.length - 1 - i),
        places.map(() => Math.floor(random() * places.length)),
      ];
      for (const order of orders)
        for (const i of order) expect(reader.text(...places[i]!), `line ${i}`).toBe(lines[i]);
    } finally {
      reader.close();
    }
  });
});

/** A row's keys in another order than benchspec writes them: read whole, not by its layout. */
const reordered = (r: ResultRow) => JSON.stringify(Object.fromEntries(Object.entries(r).reverse()));

describe("StandingRowIndex", () => {
  it("stands for readStandingRows: the same repetitions, in the same order, each at its standing row's line", async () => {
    const random = seededRandom(3);
    const rows: ResultRow[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const caseId = `case-${Math.floor(random() * 40)}`;
      rows.push({
        ...row(caseId, 1 + Math.floor(random() * 30), random() > 0.2, `ü${i}`),
        warmup: i % 9 === 0,
      });
    }
    const file = join(dir, "results.ndjson");
    // Mostly benchspec's layout (a case's later rows indexed without being parsed), some lines in another.
    const lines = rows.map((r, i) => (i % 7 === 3 ? reordered(r) : JSON.stringify(r)));
    await writeFile(file, lines.map((line) => `${line}\n`).join(""));
    const standing = await readStandingRows(file);
    // Some keys were written more than once: the index must keep the last of each.
    expect(standing.length).toBeLessThan(rows.length);
    const index = await StandingRowIndex.build(file);
    expect(index.size).toBe(standing.length);
    expect(index.lines).toBe(rows.length);
    expect(index.torn).toBe(false);
    const refs = [...index.refs()];
    expect(refs.map(repetitionKey)).toEqual(standing.map(repetitionKey));
    const reader = new PlacedLines(file);
    try {
      for (const [i, expected] of standing.entries()) {
        // By the ref it listed, and by a ref of the same parts made anew.
        for (const ref of [
          refs[i]!,
          { case: expected.case, repetition: expected.repetition, warmup: expected.warmup },
        ]) {
          expect(index.has(ref)).toBe(true);
          const place = index.place(ref)!;
          expect(JSON.parse(reader.text(place.offset, place.bytes))).toEqual(expected);
          expect(lines[place.line - 1]).toBe(reader.text(place.offset, place.bytes));
        }
      }
      // The replaced rows' lines, in file order: every line is a standing one or one of these.
      const superseded = [...index.superseded()];
      expect(superseded.length + standing.length).toBe(rows.length);
      expect(superseded.map((p) => p.line)).toEqual([...superseded.map((p) => p.line)].sort((x, y) => x - y));
      for (const place of superseded) {
        const replaced = rows[place.line - 1]!;
        expect(JSON.parse(reader.text(place.offset, place.bytes))).toEqual(replaced);
        expect(index.place({ ...replaced, warmup: replaced.warmup })!.line).toBeGreaterThan(place.line);
      }
    } finally {
      reader.close();
    }
    for (const absent of [
      { case: "no such case", repetition: 1, warmup: false },
      { case: "case-1", repetition: 99, warmup: false },
    ]) {
      expect(index.has(absent)).toBe(false);
      expect(index.place(absent)).toBeUndefined();
    }
  });

  it("refuses a line that is not a result row's JSON, naming the line, and a file without rows", async () => {
    const cases: [string, string, string][] = [
      [
        "not-a-row",
        `${JSON.stringify(row("a", 1, true))}\n${JSON.stringify({ case: "b" })}\n`,
        ":2: not a result row",
      ],
      [
        "not-json",
        `${JSON.stringify(row("a", 1, true))}\n{"case": "half\n${JSON.stringify(row("a", 2, true))}\n`,
        ":2: not a JSON row",
      ],
      ["torn", `${JSON.stringify(row("a", 1, true))}\n{"v":1,"case"`, ":2: the last line is cut off"],
      ["text", `${JSON.stringify(row("a", 1, true))}\nprogress 50%\n`, ":2: not a JSON row"],
      ["empty", "\n", ": no result rows"],
    ];
    for (const [name, text, message] of cases) {
      const file = join(dir, `${name}.ndjson`);
      await writeFile(file, text);
      await expect(StandingRowIndex.build(file), name).rejects.toThrow(`${file}${message}`);
    }
    await expect(StandingRowIndex.build(join(dir, "missing.ndjson"))).rejects.toThrow("no such results file");
  });

  it("says when the last line has no newline (a write cut off): its row is checked as it is read", async () => {
    const file = join(dir, "unterminated.ndjson");
    const first = JSON.stringify(row("a", 1, true));
    // The case's second row, cut after its repetition: indexed by its layout, broken when read.
    const cut = JSON.stringify(row("a", 2, true)).slice(0, -20);
    await writeFile(file, `${first}\n${cut}`);
    const index = await StandingRowIndex.build(file);
    expect([index.lines, index.torn, index.size]).toEqual([2, true, 2]);
    expect(index.place({ case: "a", repetition: 2, warmup: false })!.line).toBe(2);
  });
});
