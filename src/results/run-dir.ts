/**
 * The run directory: what `benchspec run` writes and `run --resume` and `report` read. Its files' names,
 * the documents they hold and how they are read and written live here only, so that the writer and its
 * readers cannot drift apart. Besides these files, a run directory holds the compiled artifacts (the
 * script, fio job files, sdk call sequences), which plan.json lists.
 */
import { appendFileSync, linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { writeFileAtomic } from "../platform/atomic-write.js";
import { processAlive, processCommandLine, processStartTime } from "../platform/process.js";
import type { Leftover, TargetDetails } from "../targets/types.js";
import { BenchspecError } from "../platform/errors.js";
import { join } from "node:path";
import { readRows, repairTail } from "./ndjson.js";
import type { RunSummary } from "./summary.js";

/** Every file of a run directory by its role: its name, and what it holds. */
export const RUN_FILES = {
  state: { name: "run.json", holds: "RunState: running, partial or complete; the spec's hash and settings" },
  spec: { name: "spec.yaml", holds: "the spec as it was run (what --resume runs)" },
  plan: { name: "plan.json", holds: "the compiled plan: every case, its parameters and its artifacts" },
  results: { name: "results.ndjson", holds: "a result row (row.ts) per repetition, appended as measured" },
  timeseries: { name: "timeseries.ndjson", holds: "throughput and IOPS points of each repetition" },
  telemetry: {
    name: "telemetry.ndjson",
    holds: "TelemetryRow: what each client host's CPU, interfaces, devices and processes did, per sample",
  },
  raw: { name: "raw", holds: "a directory: the tools' own outputs per repetition (fio's json+)" },
  summary: { name: "summary.json", holds: "RunSummary: per case statistics and the expect results" },
  provenance: { name: "provenance.json", holds: "Provenance: what a reader needs to reproduce the run" },
  report: { name: "report.html", holds: "the run's HTML report" },
  lock: { name: "run.lock", holds: "RunLock: the process running or resuming the run, while it does" },
  leftovers: {
    name: "leftovers.ndjson",
    holds:
      "what the run created outside this directory (Leftover: per target, or a host worker's scratch), appended as created",
  },
} as const;

export type RunFile = keyof typeof RUN_FILES;

/** The paths of a run directory's files, by role. */
export type RunPaths = { readonly dir: string } & { readonly [F in RunFile]: string };

export function runPaths(dir: string): RunPaths {
  const files = Object.entries(RUN_FILES).map(([role, file]) => [role, join(dir, file.name)]);
  return { dir, ...Object.fromEntries(files) } as RunPaths;
}

const RUN_FORMAT_VERSION = 1;
export const RUN_FORMAT = `benchspec-run/${RUN_FORMAT_VERSION}` as const;

/** run.json: rewritten as the run starts, ends or is interrupted. */
export interface RunState {
  format: typeof RUN_FORMAT;
  status: "running" | "partial" | "complete";
  runId: string;
  specFile: string;
  specHash: string;
  sets: string[];
  /** `--hosts` options of the run (absent in runs made before it existed). */
  hosts?: string[];
  /** `--only`: the workloads the run was limited to (absent: all of the spec's). */
  only?: string[];
  start: string;
  end?: string;
  /** A merge of the compiled script's copies, which record no provenance: what `merged` there would say. */
  merged?: Provenance["merged"];
}

/** provenance.json: what a reader needs to reproduce a run (the spec, the host, the tools, the time). */
export interface Provenance {
  spec: {
    name: string;
    file: string;
    hash: string;
    sets: string[];
    /** The repository's commit; `dirty` when the spec differs from it, `untracked` when it is not in it. */
    git?: { commit: string; dirty: boolean; untracked?: true };
  };
  host: { hostname: string; os: string; kernel: string; cpu: string; cores: number; memoryBytes: number };
  versions: Record<string, string>;
  /**
   * The id this attempt ran under: S3 keys live under `benchspec/<spec>/<runId>/` and payloads are derived
   * from it (run.json's runId plus a suffix per attempt, so a resumed attempt never reuses a key).
   */
  runId?: string;
  /** `repos`: every repo a launched Kubo node started on (one more per `fresh` renewal), since removed. */
  targets: Record<string, { location?: string } & TargetDetails>;
  start: string;
  end?: string;
  /** A run `benchspec merge` made of runs on several hosts: each of them, and what the merge noted. */
  merged?: { runs: MergedRun[]; notes: string[] };
}

/** One run that `benchspec merge` merged: the host its rows are named by, and where it came from. */
export interface MergedRun {
  host: string;
  dir: string;
  runId: string;
  status: RunState["status"];
  start: string;
  end?: string;
  /** Its provenance's host, when it had one. */
  hostname?: string;
}

/** summary.json: the statistics, and the cases this machine could not run. */
export type RunSummaryDocument = RunSummary & { skipped: { case: string; reason: string }[] };

/** The JSON files of a run directory and what they hold (plan.json is compile's: readers check it). */
interface RunDocuments {
  state: RunState;
  plan: unknown;
  summary: RunSummaryDocument;
  provenance: Provenance;
}

/** The run.json of `dir`, checked to be a benchspec run's; undefined when there is none. */
export async function findRunState(dir: string): Promise<RunState | undefined> {
  const file = join(dir, RUN_FILES.state.name);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw notRunDir(dir, (error as Error).message);
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch (error) {
    throw notRunDir(dir, `${file} is not JSON: ${(error as Error).message}`);
  }
  const format = (state as Partial<RunState> | null)?.format as unknown;
  if (format === RUN_FORMAT) return state as RunState;
  const version = typeof format === "string" ? /^benchspec-run\/(\d+)$/.exec(format) : null;
  if (version && Number(version[1]) > RUN_FORMAT_VERSION) {
    throw new BenchspecError(
      "invalid-input",
      `${file} was written by a newer benchspec (format ${format}; this version reads ${RUN_FORMAT})`,
    );
  }
  throw notRunDir(dir, `${file} has format ${JSON.stringify(format)}, not ${RUN_FORMAT}`);
}

/** The run.json of `dir`, which must have one. */
export async function readRunState(dir: string): Promise<RunState> {
  const state = await findRunState(dir);
  if (!state) throw notRunDir(dir, `no ${RUN_FILES.state.name}`);
  return state;
}

const notRunDir = (dir: string, reason: string) =>
  new BenchspecError("invalid-input", `${dir} is not a benchspec run directory (${reason})`);

/** For an exit in progress, when nothing can be awaited. */
export function writeRunStateSync(dir: string, state: RunState): void {
  writeFileSync(join(dir, RUN_FILES.state.name), jsonText(state));
}

export async function writeRunJson<F extends keyof RunDocuments>(
  dir: string,
  file: F,
  value: RunDocuments[F],
): Promise<void> {
  // Whole or not at all: a full disk leaves the previous document, never a truncated one.
  await writeFileAtomic(join(dir, RUN_FILES[file].name), jsonText(value));
}

/**
 * A JSON file of `dir` other than run.json (findRunState checks that one); undefined when it is absent or
 * not JSON: readers do without it.
 */
export async function readRunJson<F extends Exclude<keyof RunDocuments, "state">>(
  dir: string,
  file: F,
): Promise<RunDocuments[F] | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, RUN_FILES[file].name), "utf8")) as RunDocuments[F];
  } catch {
    return undefined;
  }
}

/** A new run's files besides the compiled artifacts: the spec as run, empty row files, raw/. */
export async function startRunFiles(dir: string, specText: string): Promise<void> {
  const paths = runPaths(dir);
  await writeFile(paths.spec, specText);
  await writeFile(paths.results, "");
  await writeFile(paths.timeseries, "");
  await writeFile(paths.telemetry, "");
  await mkdir(paths.raw, { recursive: true });
}

/** A resumed run's files: a torn last row (the interrupted write) is cut off before rows are appended. */
export async function reopenRunFiles(dir: string): Promise<void> {
  const paths = runPaths(dir);
  repairTail(paths.results);
  repairTail(paths.timeseries);
  repairTail(paths.telemetry);
  await mkdir(paths.raw, { recursive: true });
}

/**
 * A line of leftovers.ndjson: something the run created outside the run directory — a target's, or a client
 * host worker's scratch directory.
 */
export type RecordedLeftover = Leftover & {
  /** The target whose case created it; absent for a client host's own scratch directory. */
  target?: string;
  /** The client host it was created on, for cases that ran on other hosts (absent: this machine). */
  host?: string;
  /** The host's group in the spec: how `clean` reaches the host. */
  group?: string;
};

/**
 * Appended synchronously, before the thing is used: a run killed a moment later has it on record. Entries
 * stay when the run removes the thing itself; removing it again is a no-op.
 */
export function recordLeftover(dir: string, leftover: RecordedLeftover): void {
  appendFileSync(join(dir, RUN_FILES.leftovers.name), `${JSON.stringify(leftover)}\n`);
}

/**
 * A line of leftovers.ndjson saying that a client host's worker released everything it had recorded (it
 * said bye with no problem), or that a transport removed what it made (`released` is its `what`): what that
 * recorded before is gone, and `clean` does not reach for it.
 */
interface ReleasedHost {
  released: string;
  group: string;
}

export function recordReleased(dir: string, host: string, group: string): void {
  appendFileSync(join(dir, RUN_FILES.leftovers.name), `${JSON.stringify({ released: host, group })}\n`);
}

/** What may still be left: every recorded leftover but those of hosts that released them since. */
export function readLeftovers(dir: string): RecordedLeftover[] {
  const file = join(dir, RUN_FILES.leftovers.name);
  repairTail(file);
  const lines = readRows<RecordedLeftover | ReleasedHost>(file);
  const kept: RecordedLeftover[] = [];
  for (const line of lines) {
    if ("released" in line) {
      const gone = (l: RecordedLeftover) =>
        (l.host === line.released || (l.kind === "transport" && l.what === line.released)) &&
        l.group === line.group;
      kept.splice(0, kept.length, ...kept.filter((l) => !gone(l)));
    } else kept.push(line);
  }
  return kept;
}

/** What is still left after a clean-up (whole or not at all). */
export async function writeLeftovers(dir: string, leftovers: readonly RecordedLeftover[]): Promise<void> {
  await writeFileAtomic(
    join(dir, RUN_FILES.leftovers.name),
    leftovers.map((l) => `${JSON.stringify(l)}\n`).join(""),
  );
}

const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** run.lock: who holds the run directory. */
export interface RunLock {
  pid: number;
  host: string;
  since: string;
  /** The holder's start time (processStartTime): a later process given the same pid is not the holder. */
  started?: number;
}

/**
 * Takes the run directory for this process, so two processes (a run and a --resume, two resumes) never
 * append to the same files. The lock file appears whole (linked from a file already written), so its holder
 * is always readable. A lock whose process no longer exists on this host is taken over, with `notice`; any
 * other holder is an error naming it, before anything in the directory changes. Returns the release, which
 * also runs if the process exits first (a second Ctrl-C).
 */
export function lockRunDir(dir: string, notice: (message: string) => void): () => void {
  const path = join(dir, RUN_FILES.lock.name);
  const started = processStartTime(process.pid);
  const text = jsonText({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    ...(started !== undefined && { started }),
  } satisfies RunLock);
  const staging = `${path}.${process.pid}`;
  writeFileSync(staging, text);
  try {
    for (;;) {
      try {
        linkSync(staging, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = readLockText(path);
      if (held === undefined) continue; // released meanwhile: try again
      const holder = parseLock(held);
      if (!holder || holder.host !== hostname() || holds(holder)) {
        const who = holder
          ? `benchspec (pid ${holder.pid} on ${holder.host}, since ${holder.since})`
          : "an unreadable lock";
        throw new BenchspecError(
          "run-locked",
          `${dir} is in use by ${who}; wait for it to end, or remove ${path} if that process is gone`,
        );
      }
      // Only the lock judged stale is removed, not one another process took meanwhile.
      if (readLockText(path) === held) unlinkSync(path);
      notice(
        `taking over ${path}: its holder (pid ${holder.pid}, since ${holder.since}) no longer runs${processAlive(holder.pid) ? ` (pid ${holder.pid} is another process now)` : ""}`,
      );
    }
  } finally {
    unlinkSync(staging);
  }
  const release = () => {
    process.off("exit", release);
    if (readLockText(path) === text) unlinkSync(path);
  };
  process.on("exit", release);
  return release;
}

/**
 * Whether the lock's holder still runs on this host: its pid alive and the same process — the start time
 * the lock recorded, or (a lock without one) a command line that runs benchspec.
 */
function holds(lock: RunLock): boolean {
  if (!processAlive(lock.pid)) return false;
  if (lock.started !== undefined) {
    const started = processStartTime(lock.pid);
    return started === undefined || started === lock.started;
  }
  return processCommandLine(lock.pid)?.includes("benchspec") ?? true;
}

/** The lock file's text; undefined when there is none. */
function readLockText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function parseLock(text: string): RunLock | undefined {
  try {
    const lock = JSON.parse(text) as Partial<RunLock>;
    const whole =
      typeof lock.pid === "number" && typeof lock.host === "string" && typeof lock.since === "string";
    return whole ? (lock as RunLock) : undefined;
  } catch {
    return undefined;
  }
}
