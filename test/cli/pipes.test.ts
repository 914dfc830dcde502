/**
 * A reader that goes away early (`benchspec … | head -1`): later writes are dropped, never a crash, and a
 * run carries on to its normal end and cleanup.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-pipes-");

/**
 * Starts bin/benchspec.js with stdout read by a reader that closes the pipe after `lines` lines (0: before
 * anything arrives, like `| true`). Resolves with what was read, stderr and the exit code.
 */
function cliWithClosingReader(args: string[], lines: number) {
  const child = spawn("node", [join(ROOT, "bin/benchspec.js"), ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let read = "";
  let stderr = "";
  if (lines === 0) child.stdout.destroy();
  child.stdout.on("data", (chunk: Buffer) => {
    read += chunk.toString("utf8");
    if (read.split("\n").length > lines) child.stdout.destroy();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise<{ read: string; stderr: string; code: number | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ read, stderr, code }));
  });
}

const crashed = (stderr: string) => /Error:|EPIPE|internal error|^\s+at /m.test(stderr);

describe("a closed stdout pipe", () => {
  it("plan: output the reader no longer wants is dropped; exit 0, no stack trace", async () => {
    // 90 KB of JSON: more than a pipe buffer holds, so writing goes on after the reader has closed.
    const json = await cliWithClosingReader(["plan", "specs/cloud-disk-pts.yaml", "--json"], 1);
    expect(json.read.startsWith("{")).toBe(true);
    expect(crashed(json.stderr), json.stderr).toBe(false);
    expect(json.code).toBe(0);
    // Closed before the first line (`| true`).
    const table = await cliWithClosingReader(["plan", "specs/cloud-disk-pts.yaml"], 0);
    expect(crashed(table.stderr), table.stderr).toBe(false);
    expect(table.code).toBe(0);
  });

  it("run --json: the run goes on to its end, run.json complete, its temp target removed", async () => {
    const work = await tempDir();
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "pipes",
        targets: { scratch: { kind: "fs" } },
        defaults: { repeat: 2 },
        workloads: [{ name: "dd", engine: "dd", op: ["write", "read"], bs: "64KiB", count: 8 }],
      }),
    );
    const out = join(work, "run");
    const result = await cliWithClosingReader(["run", spec, "--json", "--out", out], 1);
    expect(JSON.parse(result.read.split("\n")[0]!)).toMatchObject({ event: "case-start" });
    expect(crashed(result.stderr), result.stderr).toBe(false);
    expect(result.code).toBe(0);
    const state = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as { status: string };
    expect(state.status).toBe("complete");
    const results = await readFile(join(out, "results.ndjson"), "utf8");
    expect(results.trim().split("\n")).toHaveLength(4);
    // The temp directory made for the fs target (…/benchspec-target-*/benchspec-<run id>) is gone.
    const provenance = JSON.parse(await readFile(join(out, "provenance.json"), "utf8")) as {
      targets: Record<string, { location: string }>;
    };
    const location = provenance.targets.scratch!.location;
    expect(dirname(location)).toMatch(/benchspec-target-/);
    expect(existsSync(dirname(location))).toBe(false);
  });
});
