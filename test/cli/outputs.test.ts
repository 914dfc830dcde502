/**
 * Where `report -o`, `schema -o` and `merge -o` write: a regular file is replaced whole, but a device, a
 * FIFO or a symlink is never replaced (written into, or its target written), and an output that is — or
 * lies inside, or holds — an input is refused before anything is read or written.
 */
import { execa } from "execa";
import { existsSync, lstatSync, statSync } from "node:fs";
import { mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioPlan, synthRows, writeRunDir } from "../report/support.js";
import { runCli } from "../support/cli.js";
import { loopDevice } from "../support/loop.js";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-outputs-");
const BIN = join(ROOT, "bin", "benchspec.js");

/** A run directory as `run` leaves it, with the quickstart's synthetic rows. */
async function runDir(): Promise<string> {
  const plan = await scenarioPlan("quickstart");
  const dir = join(await tempDir(), "run");
  await writeRunDir(dir, plan, synthRows(plan));
  return dir;
}

describe("outputs that are not regular files are never replaced", () => {
  // Device nodes and links of their own, made in a temp directory: a regression replaces those, never the
  // machine's /dev/null or /dev/stdout.
  const node = async (name: string, minor: number) => {
    const path = join(await tempDir(), name);
    await execa("mknod", ["-m", "666", path, "c", "1", String(minor)]);
    return path;
  };

  it("report -o a null and a full device: the device stays a device", async () => {
    const run = await runDir();
    const devNull = await node("null", 3);
    expect((await runCli(["report", run, "-o", devNull])).code).toBe(0);
    expect(statSync(devNull).isCharacterDevice()).toBe(true);
    const devFull = await node("full", 7);
    const full = await runCli(["report", run, "-o", devFull]);
    expect(full.code).toBe(2);
    expect(full.stderr).toContain(`-o: cannot write ${devFull}: no space left on device`);
    expect(statSync(devFull).isCharacterDevice()).toBe(true);
  });

  it("report -o FIFO: the page goes to the reader and the FIFO stays", async () => {
    const run = await runDir();
    const fifo = join(await tempDir(), "pipe");
    await execa("mkfifo", [fifo]);
    const reader = execa("cat", [fifo]);
    expect((await runCli(["report", run, "-o", fifo])).code).toBe(0);
    expect((await reader).stdout).toMatch(/^<!doctype html>/i);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("report -o symlink: the file it points to gets the page, the link stays", async () => {
    const run = await runDir();
    const dir = await tempDir();
    const target = join(dir, "user-file.html");
    await writeFile(target, "old");
    const link = join(dir, "link.html");
    await symlink(target, link);
    expect((await runCli(["report", run, "-o", link])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, "utf8")).toMatch(/^<!doctype html>/i);
  });

  it("report -o a block device is refused, and the device is not written", async () => {
    const run = await runDir();
    const loop = await loopDevice(1);
    try {
      const result = await runCli(["report", run, "-o", loop.device]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`cannot write ${loop.device}: is a block device`);
      expect(statSync(loop.device).isBlockDevice()).toBe(true);
      expect(await loop.probe()).toEqual({ "": undefined });
    } finally {
      await loop.detach();
    }
  });

  it("schema -o a link to stdout (as /dev/stdout is) prints the schema and writes nothing beside it", async () => {
    const dir = await tempDir();
    const stdout = join(dir, "stdout");
    await symlink("/proc/self/fd/1", stdout);
    const result = await execa("node", [BIN, "schema", "-o", stdout], { reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ title: expect.any(String) });
    expect(existsSync(join(dir, "sdk.schema.json"))).toBe(false);
    expect(lstatSync(stdout).isSymbolicLink()).toBe(true);
  });
});

describe("an output is never an input", () => {
  it("report: the results file itself, or a file the run directory is read from, is refused; its report.html is not", async () => {
    const run = await runDir();
    const results = join(run, "results.ndjson");
    const before = await readFile(results, "utf8");
    for (const [input, output] of [
      [results, results],
      [run, join(run, "results.ndjson")],
      [run, join(run, "plan.json")],
      [run, join(run, "raw", "x.json")],
    ] as const) {
      const refused = await runCli(["report", input, "-o", output]);
      expect(refused.code, output).toBe(2);
      expect(refused.stderr).toContain(`-o ${output}: it`);
    }
    expect(await readFile(results, "utf8")).toBe(before);
    expect((await runCli(["report", run, "-o", join(run, "report.html")])).code).toBe(0);
  });

  it("merge: an output inside an input, the input itself or holding it is refused, and nothing is made", async () => {
    const parent = await tempDir();
    const a = join(parent, "a");
    const b = join(parent, "b");
    await mkdir(a);
    await mkdir(b);
    for (const out of [join(a, "sub"), a, parent]) {
      const refused = await runCli(["merge", `${a}=h1`, `${b}=h2`, "-o", out]);
      expect(refused.code, out).toBe(2);
      expect(refused.stderr).toMatch(/it (lies inside|is|holds) the input/);
    }
    expect(existsSync(join(a, "sub"))).toBe(false);
  });
});
