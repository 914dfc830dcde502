import { execa } from "execa";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadInputs } from "../../src/report/load.js";
import {
  fioDuration,
  fioSize,
  importFioOutputs,
  isFioJson,
  paramsFromOptions,
} from "../../src/results/import-fio.js";

const temps: string[] = [];
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Real fio, its own JSON output (json+), as a user of another runner would have it. */
async function fio(dir: string, name: string, args: string[]): Promise<string> {
  const out = join(dir, `${name}.json`);
  await execa("fio", [
    `--name=${name}`,
    `--filename=${join(dir, "data")}`,
    "--size=8M",
    "--ioengine=psync",
    "--bs=4k",
    "--rw=randread",
    "--output-format=json+",
    `--output=${out}`,
    ...args,
  ]);
  return out;
}

describe("import of fio's JSON output", () => {
  it("two outputs of the same job are two repetitions; per-thread entries are summed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "benchspec-fio-import-"));
    temps.push(dir);
    const a = await fio(dir, "rr", ["--numjobs=2", "--time_based", "--runtime=1"]);
    const b = await fio(dir, "rr", ["--numjobs=2", "--time_based", "--runtime=1"]);
    const texts = await Promise.all(
      [a, b].map(async (file) => ({ name: file, text: await readFile(file, "utf8") })),
    );
    expect(isFioJson(texts[0]!.text)).toBe(true);
    const threads = (
      JSON.parse(texts[0]!.text.slice(texts[0]!.text.indexOf("{"))) as {
        jobs: { read: { io_bytes: number } }[];
      }
    ).jobs;
    expect(threads).toHaveLength(2);
    const imported = importFioOutputs(texts);
    expect(imported.rows.map((r) => [r.case, r.repetition, r.op])).toEqual([
      ["rr", 1, "randread"],
      ["rr", 2, "randread"],
    ]);
    const first = imported.rows[0]!;
    expect(first.bytes).toBe(threads[0]!.read.io_bytes + threads[1]!.read.io_bytes);
    expect(first.params).toMatchObject({
      bs: 4096,
      jobs: 2,
      size: 8 * 1024 * 1024,
      duration: 1,
      ioengine: "psync",
    });
    expect(first.latency?.p99).toBeGreaterThan(0);

    const [run] = await loadInputs([a, b]);
    expect(run!.kind).toBe("fio");
    expect(run!.cases).toHaveLength(1);
    expect(run!.cases[0]!.metrics.iops!.n).toBe(2);
  });

  it("fio's steady-state detection becomes a window and a short series", async () => {
    const dir = await mkdtemp(join(tmpdir(), "benchspec-fio-import-"));
    temps.push(dir);
    const out = await fio(dir, "ss", ["--time_based", "--runtime=4", "--ss=iops_slope:30%", "--ss_dur=2"]);
    const imported = importFioOutputs([{ name: out, text: await readFile(out, "utf8") }]);
    expect(imported.steady).toHaveLength(1);
    const window = imported.steady[0]!;
    expect(window.end - window.start).toBeGreaterThan(1);
    expect(window.end - window.start).toBeLessThanOrEqual(2);
    expect(window.criterion).toMatch(/^iops_slope/);
    expect(imported.timeseries.length).toBeGreaterThan(0);
    expect(imported.timeseries.every((p) => p.t > window.start && p.t <= window.end + 1e-9)).toBe(true);
  });

  it("reads fio's option spellings", () => {
    expect(fioSize("4k")).toBe(4096);
    expect(fioSize("1M")).toBe(1024 * 1024);
    expect(fioSize("64KiB")).toBe(65536);
    expect(fioSize("512")).toBe(512);
    expect(fioSize("lots")).toBeUndefined();
    expect(fioDuration("30")).toBe(30);
    expect(fioDuration("500ms")).toBe(0.5);
    expect(fioDuration("2m")).toBe(120);
    expect(paramsFromOptions({ rw: "randrw", rwmixwrite: "30", bs: "4k,64k", direct: "1" })).toEqual({
      op: "randrw",
      read: 70,
      bs: 4096,
      direct: true,
    });
  });
});
