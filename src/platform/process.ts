/**
 * Long-running children (launched servers, parallel dd/fio jobs) started in their own process group and
 * stopped by signalling the whole group, so nothing they forked outlives a run.
 *
 * Why a group of its own (`detached: true` = setsid): a terminal's Ctrl-C then reaches only benchspec, which
 * decides the order of shutdown, and `kill(-pgid)` reaches grandchildren that `kill(pid)` would orphan.
 * The price is that execa's `cleanup` no longer applies to detached children, so this module keeps its own
 * registry and SIGKILLs every live group when Node exits (a SIGINT handler must call `process.exit()` for
 * that hook to run; an uncaught signal ends Node without 'exit' handlers).
 */
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
  liveGroups.add(pid);

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
  liveGroups.delete(pgid);
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

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
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
  liveGroups.add(pgid);
  return () => liveGroups.delete(pgid);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
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
