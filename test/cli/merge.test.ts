/**
 * `benchspec merge`, for real: one small spec (fio and dd on tmpfs) run twice at the same time into two run
 * directories, as two hosts would, then merged — bytes summed, each host's row kept, percentiles from the
 * merged histograms, a report that shows the hosts — and what it refuses.
 */
import { execa } from "execa";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { latencyOfHistogram, mergeHistograms } from "../../src/rows/histogram.js";
import type { ResultRow, TimeseriesRow } from "../../src/rows/row.js";
import type { RunState } from "../../src/results/run-dir.js";
import type { TelemetryRow } from "../../src/rows/telemetry.js";
import { ROOT } from "../support/spec.js";

const BIN = join(ROOT, "bin", "benchspec.js");
let work: string;
let spec: string;

const cli = (args: string[]) => execa("node", [BIN, ...args], { cwd: work, reject: false, all: true });

async function run(out: string, sets: string[] = []) {
  const result = await cli(["run", spec, "-q", "--out", out, ...sets.flatMap((s) => ["--set", s])]);
  if (result.exitCode !== 0) throw new Error(`benchspec run failed (${result.exitCode}):\n${result.all}`);
}

const lines = async <T>(file: string): Promise<T[]> =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as T);
const rowsOf = (dir: string) => lines<ResultRow>(join(dir, "results.ndjson"));
const FIO = "rand.scratch.randread";
const DD = "seq.scratch.write";

beforeAll(async () => {
  // tmpfs: the two "hosts" share this machine's memory, not a disk.
  work = await mkdtemp(join("/dev/shm", "benchspec-merge-"));
  spec = join(work, "merge.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "merge",
      targets: { scratch: { kind: "fs", path: work } },
      defaults: { repeat: 2 },
      workloads: [
        {
          name: "rand",
          engine: "fio",
          op: "randread",
          ioengine: "psync",
          size: "8MiB",
          bs: "4KiB",
          duration: "1s",
          sample: "250ms",
        },
        { name: "seq", engine: "dd", op: "write", bs: "1MiB", count: 8 },
      ],
    }),
  );
  // Both at once, as two hosts of one test would run.
  await Promise.all([run(join(work, "a")), run(join(work, "b"))]);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("benchspec merge", () => {
  it("merges per case and repetition: bytes summed, each host's row, merged percentiles, a report of the hosts", async () => {
    const out = join(work, "merged");
    const result = await cli(["merge", `${join(work, "a")}=h1`, `${join(work, "b")}=h2`, "-o", out]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout.trim()).toBe(out);
    const [a, b, merged] = await Promise.all([rowsOf(join(work, "a")), rowsOf(join(work, "b")), rowsOf(out)]);
    expect(merged).toHaveLength(a.length);
    for (const row of merged) {
      const mine = a.find((r) => r.case === row.case && r.repetition === row.repetition)!;
      const theirs = b.find((r) => r.case === row.case && r.repetition === row.repetition)!;
      expect(row.bytes).toBe(mine.bytes + theirs.bytes);
      expect(row.ops).toBe(mine.ops + theirs.ops);
      expect(row.hosts!.map((h) => [h.host, h.throughput, h.start])).toEqual([
        ["h1", mine.throughput, mine.start],
        ["h2", theirs.throughput, theirs.start],
      ]);
      expect(row.start).toBe([mine.start, theirs.start].sort()[0]);
      expect(row.startSpread).toBeCloseTo(
        Math.abs(Date.parse(mine.start) - Date.parse(theirs.start)) / 1000,
        6,
      );
      expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 0);
      if (row.case === FIO) {
        // The percentiles of both hosts' operations pooled: their histograms merged.
        const pooled = latencyOfHistogram(
          mergeHistograms([mine.histograms!.latency!, theirs.histograms!.latency!]),
        )!;
        // Percentiles from the pooled histograms; the mean exact, each host's weighted by its operations.
        expect({ ...row.latency, mean: pooled.mean }).toEqual(pooled);
        expect(row.latency!.mean).toBeCloseTo(
          (mine.latency!.mean! * mine.ops + theirs.latency!.mean! * theirs.ops) / (mine.ops + theirs.ops),
          15,
        );
        expect(mergeHistograms([row.histograms!.latency!]).totalCount).toBe(
          mergeHistograms([mine.histograms!.latency!]).totalCount +
            mergeHistograms([theirs.histograms!.latency!]).totalCount,
        );
        const p99s = [mine.latency!.p99!, theirs.latency!.p99!];
        expect(row.latency!.p99).toBeGreaterThanOrEqual(Math.min(...p99s) * 0.999);
        expect(row.latency!.p99).toBeLessThanOrEqual(Math.max(...p99s) * 1.001);
      }
    }
    const series = await lines<TimeseriesRow>(join(out, "timeseries.ndjson"));
    const fioSeries = series.filter((p) => p.case === FIO && p.repetition === 1);
    expect(new Set(fioSeries.map((p) => p.host ?? "sum"))).toEqual(new Set(["h1", "h2", "sum"]));
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as {
      cases: { id: string; repetitions: number }[];
    };
    expect(summary.cases.map((c) => [c.id, c.repetitions])).toEqual([
      [FIO, 2],
      [DD, 2],
    ]);
    // Each host's telemetry, on the merged row's clock and named by its host.
    const telemetry = await lines<TelemetryRow>(join(out, "telemetry.ndjson"));
    const fioRow = merged.find((row) => row.case === FIO && row.repetition === 1)!;
    const fioTelemetry = telemetry.filter((t) => t.case === FIO && t.repetition === 1);
    expect(new Set(fioTelemetry.map((t) => t.host))).toEqual(new Set(["h1", "h2"]));
    for (const part of fioRow.hosts!) expect(part.telemetry, part.host).toBeDefined();
    // A merged run is no run of this machine's: it cannot be resumed here.
    const resumed = await cli(["run", "--resume", out]);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain("was made by benchspec merge");
    // The report (written with the merge, and again by `benchspec report`) shows each host.
    const report = await cli(["report", out, "-o", join(work, "merged.html")]);
    expect(report.exitCode, report.all).toBe(0);
    for (const file of [join(out, "report.html"), join(work, "merged.html")]) {
      const html = await readFile(file, "utf8");
      const hosts = /<table class="hosts">[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
      expect(hosts).toContain("<td>h1</td>");
      expect(hosts).toContain("<td>h2</td>");
      expect(html).toContain('data-kind="hosts"');
      expect(html).toContain("<dt>host h1</dt>");
    }
    // Written once, into the directory before it was moved into place: it names the run as moved. Made from
    // merge's own model of the rows it wrote, it is the report their reading back makes, byte for byte.
    const written = await readFile(join(out, "report.html"), "utf8");
    const undated = (html: string) => html.replace(/(Generated by benchspec \S+) at \S+/, "$1");
    expect(undated(written)).toBe(undated(await readFile(join(work, "merged.html"), "utf8")));
    expect(written).not.toMatch(/\.tmp\b/);
    expect(written).toContain(`run directory: ${out}`);
  }, 60_000);

  it("merges a case only some hosts ran from those that did, and says so", async () => {
    const partial = join(work, "b-partial");
    await cp(join(work, "b"), partial, { recursive: true });
    const kept = (await rowsOf(partial)).filter((r) => r.case !== DD);
    await writeFile(join(partial, "results.ndjson"), kept.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const out = join(work, "merged-partial");
    const result = await cli(["merge", `${join(work, "a")}=h1`, `${partial}=h2`, "-o", out]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toContain(`${DD}, repetitions 1, 2: not on h2; merged from the hosts that have it`);
    const merged = await rowsOf(out);
    expect(merged.filter((r) => r.case === DD).map((r) => r.hosts!.map((h) => h.host))).toEqual([
      ["h1"],
      ["h1"],
    ]);
    const state = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunState;
    expect(state.status).toBe("partial");
    expect(await readFile(join(out, "report.html"), "utf8")).toContain("not on h2; merged from the hosts");
  }, 60_000);

  it("makes the report of rows without time series from its model as reading them back makes it", async () => {
    // Without series the model keeps no repetition starts (nothing to place on their clocks).
    const inputs = ["a", "b"].map((name) => join(work, `${name}-no-series`));
    for (const [i, input] of inputs.entries()) {
      await cp(join(work, ["a", "b"][i]!), input, { recursive: true });
      await rm(join(input, "timeseries.ndjson"));
    }
    const out = join(work, "merged-no-series");
    const result = await cli(["merge", `${inputs[0]}=h1`, `${inputs[1]}=h2`, "-o", out]);
    expect(result.exitCode, result.all).toBe(0);
    const reread = await cli(["report", out, "-o", join(work, "merged-no-series.html")]);
    expect(reread.exitCode, reread.all).toBe(0);
    const undated = (html: string) => html.replace(/(Generated by benchspec \S+) at \S+/, "$1");
    const written = await readFile(join(out, "report.html"), "utf8");
    expect(written).not.toContain("over time");
    expect(undated(written)).toBe(undated(await readFile(join(work, "merged-no-series.html"), "utf8")));
  }, 60_000);

  it("warns when the hosts' repetitions did not run together (clocks apart)", async () => {
    const late = join(work, "b-late");
    await cp(join(work, "b"), late, { recursive: true });
    const hour = (iso: string) => new Date(Date.parse(iso) + 3_600_000).toISOString();
    const shifted = (await rowsOf(late)).map((r) => ({ ...r, start: hour(r.start), end: hour(r.end) }));
    await writeFile(join(late, "results.ndjson"), shifted.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const result = await cli([
      "merge",
      `${join(work, "a")}=h1`,
      `${late}=h2`,
      "-o",
      join(work, "merged-late"),
    ]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `${FIO}, repetitions 1, 2: the hosts' starts are up to 36\\d\\d s apart, longer than the shortest host's repetition`,
      ),
    );
    expect(result.stderr).toContain("synchronised, e.g. by NTP");
  }, 60_000);

  it("refuses a missing directory, runs of another spec, a broken row and one host twice (exit 2, naming the input and line)", async () => {
    const a = join(work, "a");
    const missing = await cli(["merge", a, join(work, "nowhere"), "-o", join(work, "m1")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`${join(work, "nowhere")}: no such run directory`);

    const other = join(work, "other");
    await run(other, ["repeat=1"]);
    const otherSpec = await cli(["merge", `${a}=h1`, `${other}=h2`, "-o", join(work, "m2")]);
    expect(otherSpec.exitCode).toBe(2);
    expect(otherSpec.stderr).toContain(`${other}: a run of another spec (merge, hash`);
    expect(otherSpec.stderr).not.toContain("undefined");

    const broken = join(work, "b-broken");
    await cp(join(work, "b"), broken, { recursive: true });
    const text = (await readFile(join(broken, "results.ndjson"), "utf8")).split("\n");
    text.splice(1, 0, '{"case": "half a row"');
    await writeFile(join(broken, "results.ndjson"), text.join("\n"));
    const bad = await cli(["merge", `${a}=h1`, `${broken}=h2`, "-o", join(work, "m3")]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`${join(broken, "results.ndjson")}:2: not a JSON row`);

    // Each row is checked as it is read, once: a measured field of the wrong type in a case's later row
    // (read without its identity parsed again), a last line cut off, a broken row a retry replaced.
    const rows = (await readFile(join(work, "b", "results.ndjson"), "utf8")).split("\n").filter(Boolean);
    const later = rows.findLastIndex((line) => (JSON.parse(line) as ResultRow).case === FIO);
    const inputs: [string, string[], string][] = [
      [
        "wrong-type",
        rows.map((line, i) => (i === later ? line.replace(/"bytes":[^,]+/, '"bytes":"many"') : line)),
        `:${later + 1}: not a result row (bytes: `,
      ],
      ["torn", [...rows, rows[0]!.slice(0, -30)], `:${rows.length + 1}: the last line is cut off`],
      ["retried", [rows[0]!.replace('"ok":true', '"ok":"yes"'), ...rows], ":1: not a result row (ok: "],
    ];
    for (const [name, text, message] of inputs) {
      const input = join(work, `b-${name}`);
      await cp(join(work, "b"), input, { recursive: true });
      await writeFile(join(input, "results.ndjson"), `${text.join("\n")}${name === "torn" ? "" : "\n"}`);
      const out = join(work, `m-${name}`);
      const refused = await cli(["merge", `${a}=h1`, `${input}=h2`, "-o", out]);
      expect(refused.exitCode, name).toBe(2);
      expect(refused.stderr, name).toContain(`${join(input, "results.ndjson")}${message}`);
      await expect(readdir(out), name).rejects.toThrow("ENOENT");
    }

    const twice = await cli(["merge", a, join(work, "b"), "-o", join(work, "m4")]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toMatch(/both ran on host ".+"; name each on the command line \(DIR=name\)/);
  }, 60_000);

  it("onto a full file system: exit 2 naming the lack of space, and nothing half-written left there", async () => {
    const full = join(work, "full");
    await mkdir(full);
    await execa("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", full]);
    try {
      for (const out of [join(full, "merged"), full]) {
        const result = await cli(["merge", `${join(work, "a")}=h1`, `${join(work, "b")}=h2`, "-o", out]);
        expect(result.exitCode, result.all).toBe(2);
        expect(result.stderr).toContain(`cannot write ${out}: no space left on device`);
        expect(result.stderr).not.toMatch(/internal error/);
        expect(await readdir(full)).toEqual([]);
      }
    } finally {
      await execa("umount", [full]);
    }
    // With room, into the same (existing, empty) directory: the run whole, no staging directory left.
    const result = await cli(["merge", `${join(work, "a")}=h1`, `${join(work, "b")}=h2`, "-o", full]);
    expect(result.exitCode, result.all).toBe(0);
    const entries = await readdir(full);
    expect(entries).toEqual(expect.arrayContaining(["results.ndjson", "summary.json", "report.html"]));
    expect(entries.filter((name) => name.startsWith("."))).toEqual([]);
  }, 60_000);
});
