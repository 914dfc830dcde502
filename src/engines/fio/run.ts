/**
 * Runs fio cases: their sections of the compiled workload jobfiles, in their own process group, json+
 * output kept raw and parsed, averaged bw/iops logs turned into the time series.
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getSystemErrorMap } from "node:util";
import type { Case } from "../../plan/types.js";
import { idFragment } from "../../spec/params.js";
import { runGroup } from "../../platform/process.js";
import { fioBinary } from "../../platform/tools.js";
import { failedMeasurement, outputTail } from "../measurement.js";
import type { ArmedRepetition, ExecContext, Executor } from "../types.js";
import { fioGate } from "./gate.js";
import {
  FIO_OUTPUT_ARGS,
  fioSafetyArgs,
  jobfilePath,
  ownJobfile,
  rateShare,
  preconditionSections,
  sectionArgs,
  targetVariable,
} from "./jobfile.js";
import { measurementFromFio, parseFioJson, seriesFromLogs } from "./results.js";

/**
 * fio rewrites option values: it expands `$ncpus`, `$pagesize`, `$mb_memory` and `${VAR}`, and splits a
 * `filename` at ':'. A directory with anything but plain characters in its path reaches fio through a
 * symlink of benchspec's own naming, made for one fio run and removed when it ends ("/." makes fio follow
 * it); a device path only needs its ':' escaped (/dev/disk/by-path/pci-0000:00:1f.2).
 */
const PLAIN_PATH = /^[A-Za-z0-9_./+-]+$/;
/** The symlinks' directories of the fio runs going on: a process that exits mid-run removes them too. */
const linkDirs = new Set<string>();
process.once("exit", () => {
  for (const dir of linkDirs) rmSync(dir, { recursive: true, force: true });
});

/** The path fio is given for the case's target, and what to do once that fio run has ended. */
function fioPath(c: Case, ctx: ExecContext): { path: string; release: () => void } {
  const location = ctx.location;
  if (c.targetKind === "block") return { path: location.replaceAll(":", "\\:"), release: () => {} };
  if (PLAIN_PATH.test(location)) return { path: location, release: () => {} };
  const base = PLAIN_PATH.test(tmpdir()) ? tmpdir() : "/tmp";
  const dir = mkdtempSync(join(base, "benchspec-fio-"));
  ctx.created({ kind: "directory", path: dir });
  linkDirs.add(dir);
  symlinkSync(location, join(dir, "target"));
  return {
    path: `${join(dir, "target")}/.`,
    release: () => {
      rmSync(dir, { recursive: true, force: true });
      linkDirs.delete(dir);
    },
  };
}

/** Runs the named sections of the case's workload jobfile. */
async function runFio(
  c: Case,
  sections: string[],
  output: string,
  ctx: ExecContext,
  cwd: string,
  extra: readonly string[] = [],
  /** Preconditioning writes also before a read case: the measured sections alone are read-only. */
  safety: readonly string[] = fioSafetyArgs(c),
  extraEnv: Record<string, string> = {},
  jobfile = join(ctx.artifactsDir, jobfilePath(c)),
) {
  const args = [
    ...FIO_OUTPUT_ARGS,
    ...safety,
    ...extra,
    `--output=${output}`,
    ...sectionArgs(sections),
    jobfile,
  ];
  const target = fioPath(c, ctx);
  try {
    return await runGroup(fioBinary(), args, {
      env: { [targetVariable(c)]: target.path, ...extraEnv },
      cwd,
      label: "fio",
      signal: ctx.signal,
    });
  } finally {
    target.release();
  }
}

export const fioExecutor: Executor = {
  async unavailable() {
    try {
      fioBinary();
      return undefined;
    } catch {
      return "fio is not installed (Debian/Ubuntu: apt-get install fio; or npm run setup)";
    }
  },

  async precondition(c, ctx) {
    const sections = preconditionSections(c);
    if (sections.length === 0) return;
    const output = join(ctx.rawDir, `${c.workload}.${c.target}.precondition.json`);
    const result = await runFio(c, sections, output, ctx, ctx.rawDir, [], []);
    if (result.aborted) throw new Error("interrupted");
    if (result.exitCode !== 0) throw new Error(`fio preconditioning failed: ${outputTail(result.output)}`);
  },

  /**
   * fio started and set up (files laid out, jobs forked), each job held at the gate just before its I/O;
   * go opens the gate. The row's start is that instant (after `ramp`, which fio does not count), its end
   * that plus fio's own runtime: the interval of the I/O, without fio's start-up and teardown.
   */
  async arm(c, repetition, warmup, ctx): Promise<ArmedRepetition> {
    const tune = c.params.autotune;
    // An autotune round (rounds are repetitions of their own here) has its files and its own jobfile: the
    // compiled one holds the case at its parameters' own values. So has a host's share of a group's rate.
    const round = tune ? `.${tune.param}-${idFragment(tune.param, c.params[tune.param]!)}` : "";
    const name = `${c.id}.${warmup ? "w" : "r"}${repetition}${round}`;
    const output = join(ctx.rawDir, `${name}.json`);
    const gate = await fioGate(c.params.jobs!);
    const share = c.params.rate && ctx.hostShare && ctx.hostShare.count > 1 ? ctx.hostShare : undefined;
    const jobfile = tune || share ? join(ctx.rawDir, `${name}.fio`) : undefined;
    if (jobfile)
      await writeFile(
        jobfile,
        share
          ? ownJobfile(
              rateShare(c, share.count),
              `host ${share.index + 1} of ${share.count}: its share of the rate`,
            )
          : ownJobfile(c, `autotune round at ${tune!.param} as below`),
      );
    const spawned = Date.now();
    const running = runFio(
      c,
      [c.id],
      output,
      ctx,
      ctx.rawDir,
      [`--exec_prerun=${gate.prerun}`],
      fioSafetyArgs(c),
      gate.env,
      jobfile,
    );
    // A fio that ends before all its jobs reach the gate failed (go says why), also when it exits 0: a job
    // whose prerun fails ends without I/O and without an error.
    const atGate = await Promise.race([gate.armed.then(() => true), running.then(() => false)]).catch(
      (error: unknown) => {
        gate.close();
        throw error;
      },
    );
    // fio keeps what the prerun printed (nothing, or why it failed) in <job>.prerun.txt beside the logs.
    const prerunFile = join(ctx.rawDir, `${c.id}.prerun.txt`);
    const ended = async () => {
      const result = await running;
      const prerun = await readFile(prerunFile, "utf8").catch(() => "");
      await rm(prerunFile, { force: true });
      return { ...result, prerun };
    };
    return {
      go: async () => {
        const released = Date.now();
        gate.open();
        const result = await ended();
        const end = Date.now();
        if (result.aborted) throw new Error("interrupted");
        const text = await readFile(output, "utf8").catch(() => "");
        if (result.exitCode !== 0 || text === "") {
          return failedMeasurement(
            spawned,
            end,
            `fio exited with ${result.exitCode ?? result.signal}: ${fioErrors(result.output, text) ?? outputTail(result.output || text)}`,
          );
        }
        if (!atGate)
          return failedMeasurement(
            spawned,
            end,
            `fio's jobs did not reach benchspec's start gate (their exec_prerun connects to it over the loopback with bash): ${outputTail(result.prerun) || "they said nothing"}`,
          );
        const measurement = measurementFromFio(
          parseFioJson(text),
          c.id,
          released + (c.params.ramp ?? 0) * 1000,
        );
        if (c.params.sample !== undefined) {
          measurement.timeseries = await collectLogs(
            c.id,
            name,
            ctx.rawDir,
            Math.max(1, Math.round(c.params.sample * 1000)),
          );
        }
        return measurement;
      },
      disarm: async () => {
        gate.close();
        await ended();
      },
    };
  },
};

/** Moves this repetition's logs aside (fio reuses the names) and merges them into one series. */
async function collectLogs(caseId: string, name: string, dir: string, intervalMs: number) {
  const logs: { kind: "bw" | "iops"; text: string }[] = [];
  for (const file of await readdir(dir)) {
    const match = file.startsWith(`${caseId}_`) ? /_(bw|iops)\.\d+\.log$/.exec(file) : null;
    if (!match) continue;
    const kept = `${name}.${file.slice(caseId.length + 1)}`;
    await rename(join(dir, file), join(dir, kept));
    logs.push({ kind: match[1] as "bw" | "iops", text: await readFile(join(dir, kept), "utf8") });
  }
  return seriesFromLogs(logs, intervalMs);
}

/**
 * Why fio failed, in its own words: its error lines ("fio: pid=0, err=30/file:filesetup.c:150, func=unlink,
 * error=Read-only file system" → "unlink: Read-only file system"), which it may write into its JSON output,
 * and each job's errno in that JSON (a failed write reports only "error": 30). The output's tail is only
 * braces.
 */
function fioErrors(output: string, json: string): string | undefined {
  const reasons = new Set(
    [...`${output}\n${json}`.matchAll(/fio: .*?func=([^,]+), error=([^\n]+)/g)].map(
      ([, func, error]) => `${func}: ${error}`,
    ),
  );
  try {
    const { jobs } = JSON.parse(json.slice(json.indexOf("{"))) as {
      jobs?: { jobname: string; error: number }[];
    };
    for (const job of jobs ?? []) {
      const [name, words] = getSystemErrorMap().get(-job.error) ?? [];
      if (job.error) reasons.add(`${job.jobname}: ${words ?? "error"} (${name ?? job.error})`);
    }
  } catch {
    // not JSON (fio stopped before writing it): its error lines are all there is
  }
  return reasons.size > 0 ? [...reasons].join("; ") : undefined;
}
