/**
 * One local process that carries workers (an ssh client, an srun): started in a process group of its own so
 * a terminal's Ctrl-C reaches benchspec only (which then stops the workers in order), tracked so that it is
 * killed when benchspec exits however it exits, its output cut into lines.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { signalGroup, trackGroup } from "../platform/process.js";

export interface WorkerProcess {
  write(line: string): void;
  /** The last lines it printed on stderr. */
  stderr(): string;
  /**
   * Closes its stdin (the workers' end of input: they clean up and leave), then stops it after `graceMs`;
   * resolves to whether it had to be signalled (it had not ended by itself).
   */
  stop(graceMs: number): Promise<boolean>;
}

const TAIL_LINES = 20;

export function startWorkerProcess(
  file: string,
  args: readonly string[],
  onLine: (line: string) => void,
  onExit: (why: string) => void,
  env: NodeJS.ProcessEnv,
): WorkerProcess {
  const child = spawn(file, args, { detached: true, stdio: ["pipe", "pipe", "pipe"], env });
  const forget = child.pid === undefined ? () => {} : trackGroup(child.pid);
  const tail: string[] = [];
  let exited = false;
  const gone = new Promise<void>((resolve) => {
    child.on("error", (error) => {
      tail.push(error.message);
      finish(`${file} could not start: ${error.message}`);
      resolve();
    });
    child.on("close", (code, signal) => {
      finish(signal ? `${file} ended by ${signal}` : `${file} exited with status ${code}`);
      resolve();
    });
  });
  function finish(why: string) {
    if (exited) return;
    exited = true;
    forget();
    onExit(why);
  }
  // A worker that is gone makes writes fail with EPIPE: its exit says what happened.
  child.stdin.on("error", () => {});
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", onLine);
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  });
  return {
    write: (line) => {
      if (!exited && child.stdin.writable) child.stdin.write(line);
    },
    stderr: () => tail.join("\n"),
    stop: async (graceMs) => {
      child.stdin.end();
      let signalled = false;
      for (const [signal, waitMs] of [
        [undefined, graceMs],
        ["SIGTERM", 2_000],
        ["SIGKILL", 5_000],
      ] as const) {
        if (exited) break;
        if (signal && child.pid !== undefined) {
          signalGroup(child.pid, signal);
          signalled = true;
        }
        await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
      }
      return signalled;
    },
  };
}
