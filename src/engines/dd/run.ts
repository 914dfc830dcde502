/**
 * Runs dd cases as the shared-storage authors did by hand, but started together: arming starts N dd
 * processes that wait behind a barrier (each blocks reading its stdin), go releases them at once; each one's
 * bytes and seconds come from dd's own summary, the aggregate from the wall time between release and the
 * last exit.
 */
import { oneSize } from "../../rows/sizes.js";
import { execa, type ResultPromise } from "execa";
import { join } from "node:path";
import type { Case } from "../../plan/types.js";
import { trackGroup } from "../../platform/process.js";
import { failedMeasurement, outputTail } from "../measurement.js";
import type { ArmedRepetition, ExecContext, Executor, Measurement } from "../types.js";
import { payloadSource, writePayloadFile, type SourceFile } from "./source.js";
import { maxOf } from "../../rows/stats.js";

const SUMMARY = /^(\d+) bytes\b.* copied, ([\d.e+-]+) s/m;

interface DdJob {
  job: number;
  /** The file (or device) this process writes or reads. */
  file: string;
  args: string[];
}

/** The dd invocations of one repetition: process i works on its own file, or its own region of a device. */
export function ddJobs(c: Case, location: string, source: string): DdJob[] {
  const { bs, count, parallel, direct } = c.params as Required<
    Pick<Case["params"], "bs" | "count" | "parallel">
  > &
    Case["params"];
  const block = c.targetKind === "block";
  return Array.from({ length: parallel }, (_, job) => {
    const file = block ? location : join(location, `dd.${job}`);
    const common = [`bs=${bs}`, `count=${count}`];
    if (c.op === "write") {
      const args = [`if=${source}`, `of=${file}`, ...common];
      // Without O_DIRECT, dd would time the page cache; fdatasync makes it time the storage.
      args.push(direct ? "oflag=direct" : "conv=fdatasync");
      if (block) args.push(`seek=${job * count}`, "conv=notrunc");
      return { job, file, args };
    }
    const args = [`if=${file}`, "of=/dev/null", ...common];
    if (direct) args.push("iflag=direct");
    if (block) args.push(`skip=${job * count}`);
    return { job, file, args };
  });
}

/**
 * Starts the repetition's dd processes held at the barrier: each one's shell says it is there, then blocks
 * reading its stdin; resolves once all of them are. `release` lets them go at once.
 */
async function armBarrier(jobs: DdJob[], signal: AbortSignal) {
  const children: ResultPromise[] = jobs.map((job) =>
    // --norc: bash started with a socket on stdin (a worker under ssh) would otherwise read ~/.bashrc, whose
    // start-up (hundreds of ms with a pyenv or conda init) is not dd's.
    execa(
      "bash",
      ["--norc", "--noprofile", "-c", 'echo armed && read -r _ && exec dd "$@"', "dd", ...job.args],
      {
        detached: true,
        cleanup: false,
        stdin: "pipe",
        reject: false,
        env: { LC_ALL: "C" },
      },
    ),
  );
  const kill = () => children.forEach((child) => child.pid && killGroup(child.pid));
  const untrack = children.map((child) => (child.pid ? trackGroup(child.pid) : () => {}));
  signal.addEventListener("abort", kill, { once: true });
  const done = () => {
    signal.removeEventListener("abort", kill);
    untrack.forEach((forget) => forget());
  };
  // At the barrier, or already gone (a process that failed to start is measured as failed when released).
  await Promise.all(
    children.map((child) =>
      Promise.race([new Promise((resolve) => child.stdout?.once("data", resolve)), child]),
    ),
  );
  return {
    async release() {
      try {
        const released = performance.now();
        const start = Date.now();
        for (const child of children) child.stdin?.end("go\n");
        const results = await Promise.all(
          children.map(async (child) => ({ result: await child, end: performance.now() })),
        );
        const last = maxOf(results.map((r) => r.end));
        return { start, seconds: (last - released) / 1000, results: results.map((r) => r.result) };
      } finally {
        done();
      }
    },
    async disarm() {
      kill();
      await Promise.all(children);
      done();
    },
  };
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

async function armProcesses(c: Case, ctx: ExecContext, source: string): Promise<ArmedRepetition> {
  const barrier = await armBarrier(ddJobs(c, ctx.location, source), ctx.signal);
  return {
    async go() {
      const { start, seconds, results } = await barrier.release();
      if (ctx.signal.aborted) throw new Error("interrupted");
      return measurementFromDd(
        results.map((result) => ({ stderr: String(result.stderr), exitCode: result.exitCode })),
        oneSize(c.params.bs!),
        start,
        seconds,
      );
    },
    disarm: () => barrier.disarm(),
  };
}

/**
 * A repetition's numbers from what its dd processes printed: each one's summary line, the aggregate over
 * the wall time from their release (epoch ms `start`) to the last exit (`seconds`).
 */
export function measurementFromDd(
  outputs: readonly { stderr: string; exitCode?: number }[],
  bs: number,
  start: number,
  seconds: number,
): Measurement {
  const end = start + seconds * 1000;
  const perJob = outputs.map((output, job) => {
    const summary = SUMMARY.exec(output.stderr);
    const bytes = summary ? Number(summary[1]) : 0;
    const jobSeconds = summary ? Number(summary[2]) : 0;
    const error = output.exitCode !== 0 ? ddError(output.stderr) || `exit ${output.exitCode}` : undefined;
    return {
      job,
      bytes,
      seconds: jobSeconds,
      throughput: jobSeconds > 0 ? bytes / jobSeconds : 0,
      ...(error && { error }),
    };
  });
  const failure = perJob.find((job) => job.error);
  if (failure)
    return { ...failedMeasurement(start, end, `dd process ${failure.job}: ${failure.error}`), jobs: perJob };
  const bytes = perJob.reduce((sum, job) => sum + job.bytes, 0);
  const ops = bytes / bs;
  return {
    ok: true,
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    bytes,
    ops,
    seconds,
    throughput: seconds > 0 ? bytes / seconds : 0,
    iops: seconds > 0 ? ops / seconds : 0,
    jobs: perJob,
  };
}

/** dd's own complaint ("dd: error writing …: No space left on device") rather than its closing counts. */
function ddError(stderr: string): string {
  const complaints = stderr.split("\n").filter((line) => line.startsWith("dd:"));
  return complaints.length > 0 ? complaints.join(" | ") : outputTail(stderr);
}

/** Reads must come from the storage, not from the page cache the setup write left behind. */
async function dropCache(c: Case, ctx: ExecContext) {
  for (const { file } of ddJobs(c, ctx.location, "/dev/zero")) {
    await execa("dd", [`if=${file}`, "iflag=nocache", "count=0"], {
      reject: false,
      cancelSignal: ctx.signal,
    });
  }
}

const bytesOf = (c: Case) => oneSize(c.params.bs!) * c.params.count!;

/** Each write case's source file, from its first repetition to its end. */
const sources = new Map<string, SourceFile>();

export const ddExecutor: Executor = {
  /** Reads need their files first: written here (unmeasured) straight from the payload generator, and synced. */
  async prepare(c, ctx) {
    if (c.op !== "read" || c.targetKind === "block") return;
    for (const { job, file } of ddJobs(c, ctx.location, "/dev/zero")) {
      ctx.signal.throwIfAborted();
      await writePayloadFile(file, `${ctx.runId}|${c.id}|${job}`, bytesOf(c), c.params.data!, { sync: true });
    }
  },

  /** The page cache dropped, the source refilled and the processes at their barrier, all before the start. */
  async arm(c, repetition, warmup, ctx) {
    if (c.op === "read" && !c.params.direct && c.targetKind !== "block") await dropCache(c, ctx);
    if (c.op !== "write" || c.params.data === "zero") return armProcesses(c, ctx, "/dev/zero");
    // New bytes every repetition (a deduplicating store must not get a repetition's data for free), in the
    // case's one source file: refilled in place, it costs a copy, not new pages.
    const identity = `${ctx.runId}|${c.id}|${warmup ? "w" : "r"}${repetition}`;
    let source = sources.get(c.id);
    if (source) await source.refill(identity);
    else sources.set(c.id, (source = await payloadSource(identity, bytesOf(c), c.params.data!, ctx.created)));
    return armProcesses(c, ctx, source.path);
  },

  async finish(c) {
    await sources.get(c.id)?.dispose();
    sources.delete(c.id);
  },
};
