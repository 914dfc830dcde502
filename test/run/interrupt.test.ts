import { execa } from "execa";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readRows } from "../../src/results/ndjson.js";
import type { ResultRow } from "../../src/rows/row.js";
import { runCli } from "../support/cli.js";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-interrupt-");

/** Processes whose command line mentions the given text (our run directory: fio's jobfile path, dd's files). */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(text) && !cmdline.includes("vitest")) found.push(`${pid}: ${cmdline}`);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const cli = (args: string[]) =>
  execa("node", [join(ROOT, "bin/benchspec.js"), ...args], { reject: false, env: { NO_COLOR: "1" } });

describe("Ctrl-C and --resume", () => {
  it("keeps every row, kills the tool, exits 130; --resume runs exactly the missing repetitions", async () => {
    const work = await tempDir();
    const target = join(work, "target");
    await execa("mkdir", [target]);
    await writeFile(join(target, "planted.txt"), "precious");
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "interrupt",
        targets: { scratch: { kind: "fs", path: target } },
        defaults: { repeat: 2 },
        workloads: [
          {
            name: "fio",
            engine: "fio",
            op: ["randread", "randwrite"],
            ioengine: "psync",
            size: "8MiB",
            bs: "4KiB",
            duration: "1500ms",
          },
          { name: "dd", engine: "dd", op: "write", bs: "64KiB", count: 8, parallel: 2 },
        ],
      }),
    );
    const out = join(work, "run");
    const results = join(out, "results.ndjson");
    const child = cli(["run", spec, "--out", out]);
    // Interrupt in the middle of the second fio repetition of the first case.
    await waitFor(() => readRows(results).length >= 1, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(processesMentioning(out).length).toBeGreaterThan(0);
    child.kill("SIGINT");
    const first = await child;
    expect(first.exitCode).toBe(130);
    expect(first.stderr).toContain("interrupting");
    expect(first.stderr).toContain(`benchspec run --resume ${out}`);
    expect(processesMentioning(out)).toEqual([]);
    const kept = readRows<ResultRow>(results);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(6);
    expect(kept.every((row) => row.ok)).toBe(true);
    expect(JSON.parse(await readFile(join(out, "run.json"), "utf8")).status).toBe("partial");
    expect(await readdir(target)).toEqual(["planted.txt"]);

    const resumed = await cli(["run", "--resume", out]);
    expect(resumed.stderr).not.toContain("FAILED");
    expect(resumed.exitCode).toBe(0);
    const rows = readRows<ResultRow>(results).filter((row) => !row.warmup);
    const keys = rows.map((row) => `${row.case}#${row.repetition}`).sort();
    expect(keys).toEqual(
      ["fio.scratch.randread", "fio.scratch.randwrite", "dd.scratch.write"]
        .flatMap((id) => [`${id}#1`, `${id}#2`])
        .sort(),
    );
    // The rows kept before the interruption are still there, unchanged.
    expect(rows.slice(0, kept.length)).toEqual(kept);
    expect(JSON.parse(await readFile(join(out, "run.json"), "utf8")).status).toBe("complete");
    expect(await readdir(target)).toEqual(["planted.txt"]);
  });

  it("a second Ctrl-C exits at once, marks the run partial and leaves nothing in the target", async () => {
    const work = await tempDir();
    const target = join(work, "target");
    await execa("mkdir", [target]);
    await writeFile(join(target, "planted.txt"), "precious");
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "slow",
        targets: { scratch: { kind: "fs", path: target } },
        workloads: [
          {
            name: "fio",
            engine: "fio",
            op: "randread",
            ioengine: "psync",
            size: "8MiB",
            bs: "4KiB",
            duration: "30s",
          },
        ],
      }),
    );
    const out = join(work, "run");
    const child = cli(["run", spec, "--out", out]);
    await waitFor(() => processesMentioning(out).some((p) => p.includes("fio")), 30_000);
    const started = Date.now();
    child.kill("SIGINT");
    child.kill("SIGINT");
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => processesMentioning(out).length === 0, 5_000);
    // The benchspec-<run id> directory is gone; what the user had there is untouched.
    expect(await readdir(target)).toEqual(["planted.txt"]);
    expect(await readFile(join(target, "planted.txt"), "utf8")).toBe("precious");
    const state = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as {
      status: string;
      end?: string;
    };
    expect(state.status).toBe("partial");
    expect(state.end).toBeDefined();
    expect(existsSync(join(out, "run.lock"))).toBe(false);
  });
});

describe("a closed terminal (SIGHUP)", () => {
  it("ends the run as Ctrl-C does: the tool stopped, the target cleaned, the rows kept, the run partial", async () => {
    const { spec, out, work } = await fioSpec("30s");
    await writeFile(join(work, "planted.txt"), "precious");
    // The run in a terminal of its own (script's pseudo-terminal); killing script closes the terminal, and
    // the kernel sends the run SIGHUP, after which its writes to the terminal fail.
    const terminal = execa(
      "script",
      ["-qfec", `node ${join(ROOT, "bin/benchspec.js")} run ${spec} --out ${out}`, "/dev/null"],
      { reject: false, env: { NO_COLOR: "1" } },
    );
    await waitFor(() => processesMentioning(out).some((p) => p.includes("fio")), 30_000);
    const closed = Date.now();
    terminal.kill("SIGKILL");
    await waitFor(() => processesMentioning(out).length === 0, 10_000);
    expect(Date.now() - closed).toBeLessThan(10_000);
    const state = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as { status: string };
    expect(state.status).toBe("partial");
    expect(existsSync(join(out, "run.lock"))).toBe(false);
    expect((await readdir(work)).sort()).toEqual(["planted.txt", "run", "spec.yaml"]);
  });
});

/** A spec of one fio case (a read for `duration`) on a temp dir, and where its run goes. */
async function fioSpec(duration: string) {
  const work = await tempDir();
  const spec = join(work, "spec.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "lock",
      targets: { scratch: { kind: "fs", path: work } },
      workloads: [{ name: "fio", engine: "fio", op: "read", ioengine: "psync", size: "1MiB", duration }],
    }),
  );
  const out = join(work, "run");
  return { spec, out, work };
}

describe("one process at a time on a run directory (run.lock)", () => {
  it("a second --resume while another runs exits 2 naming the holder and touches nothing", async () => {
    const { spec, out } = await fioSpec("30s");
    const first = cli(["run", spec, "--out", out]);
    await waitFor(() => processesMentioning(out).some((p) => p.includes("fio")), 30_000);
    first.kill("SIGINT");
    expect((await first).exitCode).toBe(130);
    expect(existsSync(join(out, "run.lock"))).toBe(false);

    const resuming = cli(["run", "--resume", out]);
    await waitFor(() => processesMentioning(out).some((p) => p.includes("fio")), 30_000);
    const before = await readFile(join(out, "run.json"), "utf8");
    const second = await runCli(["run", "--resume", out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(`${out} is in use by benchspec \\(pid ${resuming.pid} on ${hostname()}, since \\d{4}-`),
    );
    expect(await readFile(join(out, "run.json"), "utf8")).toBe(before);
    expect(readRows(join(out, "results.ndjson"))).toEqual([]);
    // clean would remove what the live run is using: refused the same way.
    const clean = await runCli(["clean", out]);
    expect(clean.code).toBe(2);
    expect(clean.stderr).toContain(`${out} is in use by benchspec (pid ${resuming.pid}`);
    resuming.kill("SIGINT");
    expect((await resuming).exitCode).toBe(130);
    expect(existsSync(join(out, "run.lock"))).toBe(false);
  });

  it("takes over a lock whose pid is now another process's: a later start, or not benchspec at all", async () => {
    const { spec, out } = await fioSpec("200ms");
    expect((await runCli(["run", spec, "--out", out])).code).toBe(0);
    const other = execa("sleep", ["30"], { reject: false });
    try {
      await waitFor(() => existsSync(`/proc/${other.pid}`), 5_000);
      const since = "2026-01-01T00:00:00.000Z";
      // Recorded with a start time (at boot): the live pid started later, so it is not the holder.
      await writeFile(
        join(out, "run.lock"),
        JSON.stringify({ pid: other.pid, host: hostname(), since, started: 0 }),
      );
      const resumed = await runCli(["run", "--resume", out]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`(pid ${other.pid} is another process now)`);
      // An older lock without a start time: the live pid's command line is not benchspec's.
      await writeFile(join(out, "run.lock"), JSON.stringify({ pid: other.pid, host: hostname(), since }));
      const again = await runCli(["run", "--resume", out]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`(pid ${other.pid} is another process now)`);
    } finally {
      other.kill();
    }
  });

  it("takes over the lock of a process that no longer exists, and says so", async () => {
    const { spec, out } = await fioSpec("200ms");
    const first = await runCli(["run", spec, "--out", out]);
    expect(first.code).toBe(0);
    const ended = execa("true");
    await ended;
    const since = "2026-01-01T00:00:00.000Z";
    await writeFile(join(out, "run.lock"), JSON.stringify({ pid: ended.pid, host: hostname(), since }));
    const resumed = await runCli(["run", "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`its holder (pid ${ended.pid}, since ${since}) no longer runs`);
    expect(existsSync(join(out, "run.lock"))).toBe(false);
  });
});
