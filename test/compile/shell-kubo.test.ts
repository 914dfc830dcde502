/**
 * A `launch: kubo` target in the compiled script: the script starts its own throwaway offline Kubo node
 * (nothing to place), renews it before every repetition for `fresh: per-repetition` as benchspec run
 * does, and leaves no daemon and no repo behind.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { compilePlan } from "../../src/compile/compile.js";
import { writeArtifacts } from "../../src/compile/output.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { VERSION } from "../../src/cli/context.js";
import { kuboBinary } from "../../src/platform/tools.js";
import { ResultRowSchema } from "../../src/rows/row.js";
import { tempDirs } from "../engines/support.js";
import { planOf } from "../support/spec.js";

const temps = tempDirs("benchspec-kubo-");
afterAll(() => temps.removeAll());

const KUBO_SPEC = {
  benchspec: 1,
  name: "shell-kubo",
  targets: { node: { kind: "ipfs", launch: "kubo", fresh: "per-repetition" } },
  workloads: [{ name: "files", op: ["put", "get"], size: "64KiB", objects: 3, repeat: 2, warmup: 1 }],
};

/** The Kubo daemons whose repo (IPFS_PATH) is under dir. */
async function daemonsUnder(dir: string): Promise<string[]> {
  const pids = (await execa("pgrep", ["-f", "ipfs daemon"], { reject: false })).stdout.split("\n");
  const environs = await Promise.all(
    pids.filter(Boolean).map((pid) => readFile(`/proc/${pid}/environ`, "latin1").catch(() => "")),
  );
  return pids.filter((_, i) => environs[i]?.includes(dir));
}

describe("a launched Kubo target in the compiled script", () => {
  it("is started by the script, fresh before every repetition after the first, and gone afterwards", async () => {
    const plan = planOf(KUBO_SPEC);
    const { artifacts, leftOut } = await compilePlan(plan, ["shell"], VERSION);
    expect(leftOut).toEqual([]);
    const dir = await temps.make();
    const scratch = await temps.make();
    await writeArtifacts(dir, artifacts);
    const run = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: { PATH: `${dirname(kuboBinary())}:${process.env.PATH}`, TMPDIR: scratch },
      reject: false,
      timeout: 240_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = run.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
    // put and get: a warm-up and 2 measured repetitions each, every one ok
    expect(rows.map((row) => `${row.op}/${row.warmup ? "w" : "r"}${row.repetition}`)).toEqual([
      "put/w1",
      "put/r1",
      "put/r2",
      "get/w1",
      "get/r1",
      "get/r2",
    ]);
    expect(rows.every((row) => row.ok && row.bytes === 3 * 64 * 1024)).toBe(true);
    // One node at setup, then a fresh one before each of the 5 repetitions after the first.
    const started = [...run.stderr.matchAll(/target node: started a Kubo node \(repo (\S+), API (\S+)\)/g)];
    expect(started).toHaveLength(6);
    expect(new Set(started.map((m) => m[1])).size).toBe(6);
    // Nothing is left: no daemon of its repos, no repo, nothing in its temp directory.
    expect(await daemonsUnder(scratch)).toEqual([]);
    expect(await readdir(scratch)).toEqual([]);
  }, 300_000);

  it("after kill -9 of the script, its node does not run on: a watchdog stops it and removes its repo", async () => {
    const plan = planOf({ ...KUBO_SPEC, workloads: [{ ...KUBO_SPEC.workloads[0], objects: 2000 }] });
    const { artifacts } = await compilePlan(plan, ["shell"], VERSION);
    const dir = await temps.make();
    const scratch = await temps.make();
    await writeArtifacts(dir, artifacts);
    const script = execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: { PATH: `${dirname(kuboBinary())}:${process.env.PATH}`, TMPDIR: scratch },
      reject: false,
      buffer: false,
      stdout: "ignore",
    });
    await new Promise<void>((resolve) => {
      script.stderr!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("warm-up 1")) resolve();
      });
    });
    expect(await daemonsUnder(scratch)).toHaveLength(1);
    // The script alone (not its process group): what a kill -9 of benchspec.sh leaves is its children.
    script.kill("SIGKILL");
    await script;
    // The watchdog stops the daemon, waits for it to exit, then removes the repo: both within 10 s.
    const [state] = await readdir(scratch);
    const targets = join(scratch, state!, "targets");
    const leftBehind = async () => [...(await daemonsUnder(scratch)), ...(await readdir(targets))];
    const deadline = Date.now() + 10_000;
    while ((await leftBehind()).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await daemonsUnder(scratch)).toEqual([]);
    // Its repo is gone; the script's own state directory (benchspec.*) is what a kill -9 leaves.
    expect(await readdir(targets)).toEqual([]);
  }, 120_000);
});
