/**
 * Rows read back by their place: scanNdjson's line offsets (over chunk boundaries, multi-byte text and
 * ranges), PlacedLines reading them in any order, and StandingRowIndex standing for readStandingRows over a
 * file it does not hold (what `merge` reads a million rows with).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlacedLines, scanNdjson } from "../../src/results/ndjson.js";
import { readStandingRows, repetitionKey, StandingRowIndex } from "../../src/results/standing-rows.js";
import { seededRandom } from "../../src/rows/random.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";

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

describe("StandingRowIndex", () => {
  it("stands for readStandingRows: the same rows, in the same order, a retried failure's replacement", async () => {
    const random = seededRandom(3);
    const rows: ResultRow[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const caseId = `case-${Math.floor(random() * 40)}`;
      rows.push(row(caseId, 1 + Math.floor(random() * 30), random() > 0.2, `ü${i}`));
    }
    const file = join(dir, "results.ndjson");
    await writeFile(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const standing = await readStandingRows(file, { strict: {} });
    // Some keys were written more than once: the index must keep the last of each.
    expect(standing.length).toBeLessThan(rows.length);
    const index = await StandingRowIndex.build(file, { strict: {} });
    try {
      expect(index.size).toBe(standing.length);
      const refs = [...index.refs()];
      expect(refs.map(repetitionKey)).toEqual(standing.map(repetitionKey));
      for (const [i, expected] of standing.entries()) {
        // By the ref it listed, and by a ref of the same parts made anew.
        for (const ref of [
          refs[i]!,
          { case: expected.case, repetition: expected.repetition, warmup: false },
        ]) {
          expect(index.has(ref)).toBe(true);
          const got = index.get(ref)!;
          expect(got).toEqual(expected);
          expect(ResultRowSchema.parse(got)).toEqual(got);
        }
      }
      for (const absent of [
        { case: "no such case", repetition: 1, warmup: false },
        { case: "case-1", repetition: 99, warmup: false },
        { case: standing[0]!.case, repetition: standing[0]!.repetition, warmup: true },
      ]) {
        expect(index.has(absent)).toBe(false);
        expect(index.get(absent)).toBeUndefined();
      }
    } finally {
      index.close();
    }
  });

  it("refuses what readStandingRows refuses, naming the line", async () => {
    const file = join(dir, "broken.ndjson");
    await writeFile(file, `${JSON.stringify(row("a", 1, true))}\n${JSON.stringify({ case: "b" })}\n`);
    await expect(StandingRowIndex.build(file, { strict: {} })).rejects.toThrow(`${file}:2: not a result row`);
    await expect(StandingRowIndex.build(file.replace("broken", "missing"), { strict: {} })).rejects.toThrow(
      "no such results file",
    );
  });
});
