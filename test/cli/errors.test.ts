/** User mistakes end in one clear line and exit 2: never "internal error", never a hang. */
import { existsSync } from "node:fs";
import { mkdir, readdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execa } from "execa";
import { runCli } from "../support/cli.js";
import { scenarioPlan, synthRows } from "../report/support.js";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-errors-");

/** Exit 2 with exactly one line on stderr, `benchspec: …` containing `text`. */
function expectUsageError(result: { code: number; stderr: string }, text: string) {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toContain("internal error");
  const lines = result.stderr.trim().split("\n");
  expect(lines.at(-1)).toMatch(/^benchspec: /);
  expect(lines.at(-1)).toContain(text);
}

const hasProc = existsSync("/proc/self");

/** A results file of the quickstart spec with generated rows, for commands that read results. */
async function quickstartResults(): Promise<string> {
  const file = join(await tempDir(), "results.ndjson");
  const rows = synthRows(await scenarioPlan("quickstart"), { reps: 3 });
  await writeFile(file, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  return file;
}
const isRoot = process.getuid?.() === 0;

describe("output locations", () => {
  it("compile --out an existing file: it is a file, not a directory", async () => {
    const dir = await tempDir();
    const file = join(dir, "taken");
    await writeFile(file, "mine");
    expectUsageError(
      await runCli(["compile", "specs/quickstart.yaml", "--out", file]),
      `--out: ${file} is a file, not a directory`,
    );
    expectUsageError(
      await runCli(["compile", "specs/quickstart.yaml", "--out", join(file, "sub")]),
      `${file} is a file, not a directory`,
    );
  });

  it("compile --out creates missing parent directories", async () => {
    const out = join(await tempDir(), "a", "b", "c");
    expect((await runCli(["compile", "specs/quickstart.yaml", "--out", out])).code).toBe(0);
    expect(await readdir(out)).toContain("plan.json");
  });

  it.runIf(hasProc)(
    "compile and run --out /proc/…: an error, not a hang",
    async () => {
      const name = `/proc/benchspec-${process.pid}`;
      expectUsageError(await runCli(["compile", "specs/quickstart.yaml", "--out", name]), `cannot create`);
      expectUsageError(await runCli(["run", "specs/quickstart.yaml", "--out", name]), `cannot create`);
      expectUsageError(
        await runCli(["compile", "specs/quickstart.yaml", "--out", `${name}/deeper`]),
        `cannot create`,
      );
    },
    20_000,
  );

  it("an empty path is refused wherever a path is taken (it would mean the current directory)", async () => {
    // In a child whose working directory is a fresh one, so that a regression writes there, not here.
    const cwd = await tempDir();
    const bin = join(ROOT, "bin", "benchspec.js");
    const spec = join(ROOT, "specs", "quickstart.yaml");
    for (const [args, option] of [
      [["compile", spec, "--out", ""], "--out"],
      [["run", spec, "--out", ""], "--out"],
      [["run", "--resume", ""], "--resume"],
      [["report", join(ROOT, "test", "fixtures"), "-o", ""], "-o"],
      [["schema", "-o", ""], "-o"],
      [["init", ""], "init"],
    ] as const) {
      const result = await execa("node", [bin, ...args], { cwd, reject: false, env: { NO_COLOR: "1" } });
      expectUsageError(
        { code: result.exitCode ?? -1, stderr: result.stderr },
        `${option}: an empty path is not allowed`,
      );
    }
    expect(await readdir(cwd)).toEqual([]);
  });

  it.runIf(hasProc)("report and schema -o where nothing can be written: an error naming it", async () => {
    const results = await quickstartResults();
    expectUsageError(
      await runCli(["report", results, "-o", "/proc/x.html"]),
      "-o: cannot write /proc/x.html",
    );
    expectUsageError(await runCli(["schema", "-o", "/proc/x"]), "-o: cannot write /proc/x");
  });

  it.runIf(isRoot)(
    "a full disk: report -o fails, and leaves neither a truncated file nor a temporary one",
    async () => {
      const dir = await tempDir();
      await execa("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]);
      try {
        const results = await quickstartResults();
        const result = await runCli(["report", results, "-o", join(dir, "report.html")]);
        expectUsageError(result, "no space left on device");
        expect(await readdir(dir)).toEqual([]);
      } finally {
        await execa("umount", [dir]);
      }
    },
  );

  it("init into a directory that does not exist says so", async () => {
    const dir = await tempDir();
    const file = join(dir, "sub", "dir", "x.yaml");
    expectUsageError(await runCli(["init", file]), `${join(dir, "sub", "dir")} does not exist`);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("run usage", () => {
  it("no spec and no --resume", async () => {
    expectUsageError(await runCli(["run"]), "name a spec to run, or --resume a run directory");
  });

  it("--out a non-empty directory that is not a run", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "notes.txt"), "mine");
    expectUsageError(await runCli(["run", "specs/quickstart.yaml", "--out", dir]), "is not empty");
    expect(await readdir(dir)).toEqual(["notes.txt"]);
  });

  it("--resume takes the spec and settings recorded in the run directory", async () => {
    const dir = join(await tempDir(), "run");
    await mkdir(dir);
    expectUsageError(
      await runCli(["run", "specs/quickstart.yaml", "--resume", dir]),
      `--resume takes the spec recorded in ${dir}`,
    );
    expectUsageError(
      await runCli(["run", "--resume", dir, "--set", "repeat=5"]),
      `--resume takes the settings recorded in ${dir}`,
    );
    expectUsageError(await runCli(["run", "--resume", dir]), "is not a benchspec run directory");
  });
});

describe("report inputs that are not files", () => {
  const bin = join(ROOT, "bin", "benchspec.js");
  // Through the built CLI with a time limit: before the fix /dev/zero grew without bound and a FIFO blocked.
  const report = async (input: string) => {
    const out = join(await tempDir(), "report.html");
    const result = await execa("node", [bin, "report", input, "-o", out], {
      reject: false,
      timeout: 30_000,
      env: { NO_COLOR: "1" },
    });
    expect(result.timedOut).toBe(false);
    expect(existsSync(out)).toBe(false);
    return { code: result.exitCode ?? -1, stderr: result.stderr };
  };

  it("/dev/zero is refused as a character device", async () => {
    expectUsageError(await report("/dev/zero"), "/dev/zero is a character device; expected a run directory");
  });

  it("a FIFO is refused without waiting for a writer", async () => {
    const fifo = join(await tempDir(), "results.ndjson");
    await execa("mkfifo", [fifo]);
    expectUsageError(await report(fifo), `${fifo} is a FIFO; expected a run directory`);
  });

  it("fio JSON over 1 GiB is refused before it is read whole", async () => {
    const file = join(await tempDir(), "fio.json");
    await writeFile(file, `{"fio version": "fio-3.36", "jobs": [`);
    await truncate(file, 1024 ** 3 + 1); // sparse: no gigabyte is written
    expectUsageError(await report(file), "it is read whole, up to 1 GiB");
  });
});
