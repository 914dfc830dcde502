/**
 * Long-running children (launched servers, parallel dd/fio jobs) started in their own process group and
 * stopped by signalling the whole group, so nothing they forked outlives a run.
 *
 * Why a group of its own (`detached: true` = setsid): a terminal's Ctrl-C then reaches only benchspec, which
 * decides the order of shutdown, and `kill(-pgid)` reaches grandchildren that `kill(pid)` would orphan.
 * The price is that execa's `cleanup` no longer applies to detached children, so this module keeps its own
 * registry and SIGKILLs every live group when Node exits (a SIGINT handler must call `process.exit()` for
 * that hook to run; an uncaught signal ends Node without 'exit' handlers).
 *
 * Nothing runs on SIGKILL, so a watchdog outlives benchspec for that: one `sh` per benchspec process, in a
 * session of its own, told every live group through a pipe. The kernel closes the pipe's write end when
 * benchspec dies however it dies; the watchdog then reads end-of-file and kills the groups it was told.
 */
import { readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { execa } from "execa";

export interface StartOptions {
  /** Added to (not replacing) the parent environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Name used in error messages, e.g. "minio". */
  label?: string;
  /** How long stop() waits after SIGTERM before SIGKILL. */
  stopTimeoutMs?: number;
}

export interface ExitInfo {
  exitCode: number | undefined;
  signal: string | undefined;
}

export interface GroupProcess {
  /** Also the process-group id. */
  readonly pid: number;
  readonly label: string;
  /** Settles when the group leader has exited and its output pipes are closed. */
  readonly exited: Promise<ExitInfo>;
  hasExited(): boolean;
  /** The last OUTPUT_TAIL_BYTES of stdout and stderr interleaved, for error messages. */
  output(): string;
  /** SIGTERM to the group, SIGKILL after stopTimeoutMs; resolves when the group is empty. Idempotent. */
  stop(): Promise<void>;
}

const OUTPUT_TAIL_BYTES = 16 * 1024;
const POLL_MS = 25;
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export async function startGroup(
  file: string,
  args: readonly string[],
  options: StartOptions = {},
): Promise<GroupProcess> {
  const label = options.label ?? file;
  installExitHook();
  const subprocess = execa(file, args, {
    env: options.env,
    cwd: options.cwd,
    detached: true,
    cleanup: false,
    stdin: "ignore",
    // Not buffered: a server may log for hours. The tail kept below is enough to explain a failure.
    buffer: false,
    reject: false,
  });
  if (subprocess.pid === undefined) {
    const result = await subprocess;
    throw new Error(`could not start ${label}: ${result.message}`, { cause: result.cause });
  }
  const pid = subprocess.pid;
  addGroup(pid);

  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-OUTPUT_TAIL_BYTES);
  };
  subprocess.stdout?.on("data", keep);
  subprocess.stderr?.on("data", keep);

  let done = false;
  const exited = subprocess.then((result) => {
    done = true;
    return { exitCode: result.exitCode, signal: result.signal } satisfies ExitInfo;
  });

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopGroup(pid, exited, options.stopTimeoutMs ?? 10_000));

  return { pid, label, exited, hasExited: () => done, output: () => tail, stop };
}

async function stopGroup(pgid: number, exited: Promise<ExitInfo>, timeoutMs: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  if (!(await waitGroupGone(pgid, timeoutMs))) {
    signalGroup(pgid, "SIGKILL");
    // SIGKILL cannot be ignored; the bound only guards against zombies nobody reaps (containers without init).
    await waitGroupGone(pgid, 5_000);
  }
  await exited;
  forgetGroup(pgid);
}

/** True if a process in the group still exists (signal 0 checks without sending anything). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    // ESRCH: no such group. EPERM: the pgid now belongs to another user's processes, so ours is gone too.
    return false;
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * For children started elsewhere with `detached: true` (e.g. the dd barrier, which needs their stdin):
 * their groups are SIGKILLed on exit like startGroup's. Returns the function that forgets the group.
 */
export function trackGroup(pgid: number): () => void {
  installExitHook();
  addGroup(pgid);
  return () => forgetGroup(pgid);
}

function addGroup(pgid: number): void {
  liveGroups.add(pgid);
  tellWatchdog(`+${pgid}`);
}

function forgetGroup(pgid: number): void {
  // Told first, so the watchdog never kills a group id the kernel may have given to someone else since.
  if (liveGroups.delete(pgid)) tellWatchdog(`-${pgid}`);
}

/**
 * Lines "+PGID" and "-PGID" add and forget a group; at end-of-file every group still listed is SIGKILLed,
 * and so are the direct children of its processes that live in a group of their own: fio runs each job in
 * a session of its own, which a group signal misses and which runs on when fio dies. The groups are
 * stopped first so that nobody forks while /proc is read.
 */
const WATCHDOG = `groups=' '
while IFS= read -r line; do
  id=\${line#?}
  case $line in
    +*) groups="$groups$id " ;;
    -*) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for id in $groups; do kill -s STOP -- "-$id" 2>/dev/null; done
members=' '
for f in /proc/[0-9]*/stat; do
  IFS= read -r s <"$f" 2>/dev/null || continue
  set -- \${s##*) }
  case $groups in *" $3 "*) p=\${f#/proc/}; members="$members\${p%/stat} " ;; esac
done
for f in /proc/[0-9]*/stat; do
  IFS= read -r s <"$f" 2>/dev/null || continue
  set -- \${s##*) }
  case $members in *" $2 "*) p=\${f#/proc/}; kill -s KILL "\${p%/stat}" 2>/dev/null ;; esac
done
for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done`;

let watchdog: ChildProcess | undefined;

function tellWatchdog(line: string): void {
  if (!watchdog) {
    // Its own session: a terminal's Ctrl-C, which reaches benchspec's group, must not end the watchdog.
    watchdog = spawn("sh", ["-c", WATCHDOG], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    // Neither the watchdog nor its pipe keeps Node alive; a watchdog that is gone is not worth a crash.
    watchdog.on("error", () => {});
    watchdog.stdin!.on("error", () => {});
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
  }
  watchdog.stdin!.write(`${line}\n`);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
    // Every group stopped in order: the watchdog has nothing to do, and goes with benchspec rather than
    // a moment after it. Otherwise it stays, for the jobs fio ran in sessions of their own.
    if (liveGroups.size === 0) watchdog?.kill("SIGKILL");
  });
}

export interface GroupResult extends ExitInfo {
  /** The tail of the output (see GroupProcess.output). */
  output: string;
  aborted: boolean;
}

/** Runs a command to completion in its own process group; aborting the signal stops the whole group. */
export async function runGroup(
  file: string,
  args: readonly string[],
  options: StartOptions & { signal: AbortSignal },
): Promise<GroupResult> {
  if (options.signal.aborted) return { exitCode: undefined, signal: "SIGTERM", output: "", aborted: true };
  const child = await startGroup(file, args, { stopTimeoutMs: 3_000, ...options });
  const onAbort = () => void child.stop();
  options.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const exit = await child.exited;
    // The leader is gone; make sure nothing it forked lingers either.
    await child.stop();
    return { ...exit, output: child.output(), aborted: options.signal.aborted };
  } finally {
    options.signal.removeEventListener("abort", onAbort);
  }
}

/** Whether process `pid` exists on this host (EPERM: it does, someone else's). */
/**
 * When a process started, in clock ticks since boot (/proc/PID/stat's 22nd field): with its pid, what tells
 * it from a later process the kernel gave the same pid. Undefined when it is gone (or there is no /proc).
 */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** The command line of a live process, its arguments joined by spaces (undefined when it is gone). */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
