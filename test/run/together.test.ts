import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readRows } from "../../src/results/ndjson.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import { runCli } from "../support/cli.js";
import { loopDevice } from "../support/loop.js";

const temps: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-together-"));
  temps.push(dir);
  return dir;
};
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

async function writeSpec(spec: object): Promise<string> {
  const file = join(await tempDir(), "spec.yaml");
  await writeFile(file, stringify({ benchspec: 1, name: "t", ...spec }));
  return file;
}

const rowsOf = (dir: string) => readRows<ResultRow>(join(dir, "results.ndjson"));

/** Bytes the kernel wrote to a block device so far (/sys/block/<dev>/stat: sectors written, 512 bytes each). */
async function bytesWritten(device: string): Promise<number> {
  const fields = (await readFile(`/sys/block/${basename(device)}/stat`, "utf8")).trim().split(/\s+/);
  return Number(fields[6]) * 512;
}

describe("one case over several targets at once (target: { together })", () => {
  it("fio writes to every drive of a JBOD at the same time: one aggregate row, each drive its share", async () => {
    const drives = [await loopDevice(64, { directIo: true }), await loopDevice(64, { directIo: true })];
    try {
      const spec = await writeSpec({
        targets: Object.fromEntries(
          drives.map((d, i) => [`d${i + 1}`, { kind: "block", device: d.device, destructive: true }]),
        ),
        workloads: [
          {
            name: "jbod",
            engine: "fio",
            target: { together: ["d1", "d2"] },
            op: "write",
            bs: "1MiB",
            size: "32MiB",
            jobs: 2,
            ioengine: "psync",
            direct: true,
            repeat: 2,
          },
        ],
      });
      const before = await Promise.all(drives.map((d) => bytesWritten(d.device)));
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.stderr).not.toContain("failed");
      expect(result.code).toBe(0);
      const after = await Promise.all(drives.map((d) => bytesWritten(d.device)));
      const rows = rowsOf(out);
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        ResultRowSchema.parse(row);
        expect(row.ok).toBe(true);
        expect(row.case).toBe("jbod.d1+d2.write");
        expect(row.target).toBe("d1+d2");
        const parts = row.targets!;
        expect(parts.map((p) => p.target)).toEqual(["d1", "d2"]);
        // Each drive wrote its own jobs' bytes: 2 jobs × 32 MiB.
        for (const part of parts) expect(part.bytes).toBe(2 * 32 * 2 ** 20);
        expect(row.bytes).toBe(parts[0]!.bytes + parts[1]!.bytes);
        // The drives ran at the same time: their I/O intervals overlap.
        const starts = parts.map((p) => Date.parse(p.start));
        const ends = parts.map((p) => Date.parse(p.end));
        expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
        expect(Date.parse(row.start)).toBe(Math.min(...starts));
        expect(Date.parse(row.end)).toBe(Math.max(...ends));
        expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 6);
      }
      // And the kernel saw each drive get them: two repetitions of 64 MiB each.
      for (const [i] of drives.entries())
        expect(after[i]! - before[i]!).toBeGreaterThanOrEqual(2 * 2 * 32 * 2 ** 20);
    } finally {
      for (const d of drives) await d.detach();
    }
  });

  it("preconditions each drive of the group, one after the other, before the case reads them together", async () => {
    const drives = [await loopDevice(32), await loopDevice(32)];
    try {
      const spec = await writeSpec({
        targets: Object.fromEntries(
          drives.map((d, i) => [`d${i + 1}`, { kind: "block", device: d.device, destructive: true }]),
        ),
        workloads: [
          {
            name: "jbod",
            engine: "fio",
            target: { together: ["d1", "d2"] },
            op: "randread",
            bs: "4KiB",
            ioengine: "psync",
            duration: "1s",
            precondition: { passes: 1 },
            repeat: 1,
          },
        ],
      });
      const before = await Promise.all(drives.map((d) => bytesWritten(d.device)));
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr.indexOf("jbod on d1: preconditioning")).toBeGreaterThanOrEqual(0);
      expect(result.stderr.indexOf("jbod on d2: preconditioning")).toBeGreaterThan(
        result.stderr.indexOf("jbod on d1: preconditioning"),
      );
      // One full write pass of each drive; the case itself only reads.
      const after = await Promise.all(drives.map((d) => bytesWritten(d.device)));
      for (const [i] of drives.entries()) expect(after[i]! - before[i]!).toBeGreaterThanOrEqual(32 * 2 ** 20);
      const [row] = rowsOf(out);
      expect(row).toMatchObject({ ok: true, case: "jbod.d1+d2.randread" });
    } finally {
      for (const d of drives) await d.detach();
    }
  });

  it("dd on two directories: the aggregate's bytes are the directories' sum", async () => {
    const dirs = [await tempDir(), await tempDir()];
    const spec = await writeSpec({
      targets: { a: { kind: "fs", path: dirs[0] }, b: { kind: "fs", path: dirs[1] } },
      workloads: [
        {
          name: "dd",
          engine: "dd",
          target: { together: ["a", "b"] },
          op: ["write", "read"],
          bs: "64KiB",
          count: 16,
          parallel: 2,
        },
      ],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code).toBe(0);
    const rows = rowsOf(out);
    expect(rows.map((r) => r.case)).toEqual(["dd.a+b.write", "dd.a+b.read"]);
    for (const row of rows) {
      expect(row.ok).toBe(true);
      expect(row.targets!.map((p) => [p.target, p.bytes])).toEqual([
        ["a", 2 * 16 * 65536],
        ["b", 2 * 16 * 65536],
      ]);
      expect(row.bytes).toBe(4 * 16 * 65536);
      expect(row.jobs).toHaveLength(4);
    }
  });

  it("the report has a table and a chart per target", async () => {
    const dirs = [await tempDir(), await tempDir()];
    const spec = await writeSpec({
      targets: { a: { kind: "fs", path: dirs[0] }, b: { kind: "fs", path: dirs[1] } },
      workloads: [
        {
          name: "jbod",
          engine: "fio",
          target: { together: ["a", "b"] },
          op: "write",
          bs: "64KiB",
          size: "8MiB",
          duration: "1s",
          sample: "250ms",
          ioengine: "psync",
        },
      ],
    });
    const out = join(await tempDir(), "run");
    expect((await runCli(["run", spec, "--out", out])).code).toBe(0);
    const series = readRows<{ target?: string }>(join(out, "timeseries.ndjson"));
    expect(new Set(series.map((p) => p.target))).toEqual(new Set(["a", "b", undefined]));
    const html = await readFile(join(out, "report.html"), "utf8");
    expect(html).toContain("<h3>Targets</h3>");
    const table = /<table class="hosts">[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
    expect(table).toContain("all 2 targets");
    expect(table).toContain("<td>a</td>");
    expect(table).toContain("<td>b</td>");
    expect(html).toMatch(/<figure class="chart" id="[^"]*" data-kind="hosts">/);
    expect(html).toContain("jbod: throughput per target over time");
  });

  it("one mounted drive refuses the whole case: nothing is written to the other", async () => {
    const clean = await loopDevice(32);
    const mounted = await loopDevice(32);
    try {
      await mounted.mount();
      const spec = await writeSpec({
        targets: {
          clean: { kind: "block", device: clean.device, destructive: true },
          busy: { kind: "block", device: mounted.device, destructive: true },
        },
        workloads: [
          {
            name: "jbod",
            engine: "dd",
            target: { together: ["clean", "busy"] },
            op: "write",
            bs: "1MiB",
            count: 4,
          },
        ],
      });
      const before = await bytesWritten(clean.device);
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.code).toBe(1);
      const [row] = rowsOf(out);
      expect(row!.ok).toBe(false);
      expect(row!.error).toMatch(/^target "busy": refusing .*mounted/);
      expect(await bytesWritten(clean.device)).toBe(before);
    } finally {
      await clean.detach();
      await mounted.detach();
    }
  });
});

describe("validation of { together }", () => {
  it("names unknown targets, mixed kinds and engines that cannot run several targets", async () => {
    const spec = await writeSpec({
      targets: {
        a: { kind: "fs" },
        b: { kind: "fs" },
        d: { kind: "block", device: "/dev/loop99" },
        s1: { kind: "s3", launch: "minio" },
        s2: { kind: "s3", launch: "minio" },
      },
      workloads: [
        { name: "unknown", target: { together: ["a", "nope"] }, op: "write" },
        { name: "mixed", target: { together: ["a", "d"] }, op: "read" },
        { name: "twice", target: { together: ["a", "a"] }, op: "write" },
        { name: "objects", target: { together: ["s1", "s2"] }, op: "put" },
      ],
    });
    const result = await runCli(["validate", spec]);
    expect(result.code).not.toBe(0);
    const out = result.stdout + result.stderr;
    expect(out).toMatch(
      /workloads\[0\]\.target\.together\[1\]: error: no target named "nope".*\[unknown-target\]/,
    );
    expect(out).toMatch(
      /workloads\[1\]\.target\.together\[1\]: error: the targets of a group must be of one kind: "a" is fs, "d" is block \[invalid-together\]/,
    );
    expect(out).toMatch(/workloads\[2\]\.target\.together\[1\]: error: target "a" is in the group twice/);
    expect(out).toMatch(
      /workloads\[3\]\.target: error: engine s3 cannot run one case over several targets at once; engines that can: fio, dd \[invalid-together\]/,
    );
  });
});
