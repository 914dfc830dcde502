/**
 * The fio transport's stand-in for `benchspec worker`. Only `fio --server` runs on the hosts, so this object
 * answers the worker protocol for every host of the group, here, and runs each step once for all of them:
 * `fio --client=h1 <h1's jobfile> --client=h2 <h2's jobfile> …`. fio's client sends every server its job
 * and then starts them together, so fio is the start barrier. The session above (greeting, clock readings,
 * silence watch, merged rows) sees workers like any others; a step waits until every live host was sent it.
 *
 * Each host's row comes from its own client_stats entry in fio's json+: bytes, operations, runtime and the
 * completion-latency bins (so the merged row pools the hosts' bins, which fio 3.33's "All clients" entry
 * cannot: it has no percentiles). fio reports no start instant per server: every host's `start` is when the
 * fio client was started, its `end` that plus its own runtime.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../platform/package-root.js";
import { failedMeasurement, outputTail } from "../engines/measurement.js";
import {
  FIO_OUTPUT_ARGS,
  jobfilePath,
  ownJobfile,
  rateShare,
  preconditionSections,
  targetVariable,
} from "../engines/fio/jobfile.js";
import {
  measurementFromFio,
  outputsByServer,
  seriesFromLogs,
  type FioOutput,
} from "../engines/fio/results.js";
import type { Measurement } from "../engines/types.js";
import type { Case } from "../plan/types.js";
import { runGroup } from "../platform/process.js";
import { fioBinary } from "../platform/tools.js";
import { resolveEnvRefs } from "../spec/strings.js";
import { plainDirectory } from "../spec/target-kinds.js";
import { cleanupJobfile, clientArg, fioServer, hostJobfile, type FioServer } from "../engines/fio/clients.js";
import {
  ALIVE_INTERVAL_MS,
  decodeToWorker,
  encodeMessage,
  PROTOCOL_VERSION,
  type FromWorker,
  type FromWorkerBody,
  type ToWorker,
} from "./protocol.js";
import type { GroupOf, StartedWorkers, WorkerEvents } from "./types.js";

const DEFAULT_CONNECT_TIMEOUT_S = 10;

/** The steps every host takes together (clock and abort are answered at once, by each). */
type Step = Extract<ToWorker, { t: "hello" | "prepare" | "start" | "finish" | "bye" }>;
/** A host's answer to a step, or why it is gone (its link dies with that). */
type Answer = FromWorkerBody | { gone: string };

/** One fio client run: each live host's share of the output (absent when fio reported none for it) and logs. */
interface ClientRun {
  startMs: number;
  aborted: boolean;
  hosts: Map<number, { output: FioOutput | undefined; logs: { kind: "bw" | "iops"; text: string }[] }>;
  /** What fio said besides its JSON, for errors. */
  said: string;
}

interface OpenCase {
  c: Case;
  /** The target's path on every host. */
  dir: string;
  jobfile: string;
  keep: boolean;
}

export class FioServers implements StartedWorkers {
  private readonly servers: FioServer[];
  private readonly gone = new Set<number>();
  private readonly gathering = new Map<string, Set<number>>();
  private readonly cases = new Map<string, OpenCase>();
  private readonly alive: NodeJS.Timeout;
  private readonly scratch = mkdtemp(join(tmpdir(), "benchspec-fio-client-"));
  private queue = Promise.resolve();
  /** Steps gathered or queued and not yet answered: what `alive` says, as a worker's does. */
  private stepsLeft = 0;
  private interrupt = new AbortController();
  private session: Extract<ToWorker, { t: "hello" }> | undefined;
  private jobfiles = new Map<string, string>();

  constructor(
    private readonly group: GroupOf<"fio">,
    private readonly events: WorkerEvents,
  ) {
    this.servers = group.hosts.map(fioServer);
    // On the run's record as soon as it exists (said as host 0's, of this machine): clean removes it after a
    // killed run.
    void this.scratch.then(
      (dir) => this.send(0, { t: "leftover", leftover: { kind: "directory", path: dir } }),
      () => {},
    );
    this.alive = setInterval(() => {
      const busy = this.stepsLeft > 0 || this.gathering.size > 0;
      for (const index of this.live()) this.send(index, { t: "alive", busy });
    }, ALIVE_INTERVAL_MS);
    this.alive.unref();
  }

  write(index: number, line: string): void {
    const message = decodeToWorker(line);
    if (!message || message.to !== index || this.gone.has(index)) return;
    if (message.t === "clock") this.send(index, { t: "clock", id: message.id, now: Date.now() });
    else if (message.t === "abort") this.interrupt.abort();
    // The coordinator's heartbeat is for workers that could outlive it; the stand-in lives in its process.
    else if (message.t === "alive") return;
    // Nothing to make ready: fio's client starts every server's jobs together when the start comes.
    else if (message.t === "arm")
      this.send(index, {
        t: "armed",
        case: message.case,
        repetition: message.repetition,
        warmup: message.warmup,
      });
    else this.together(message, index);
  }

  /** Nothing: what fio says goes into the failed step's error. */
  stderr(): string {
    return "";
  }

  async stop(): Promise<void> {
    clearInterval(this.alive);
    this.interrupt.abort();
    await this.queue;
    await rm(await this.scratch, { recursive: true, force: true });
  }

  private live(): number[] {
    return this.servers.map((_, index) => index).filter((index) => !this.gone.has(index));
  }

  /** Answers after the caller's send returns: the session waits for an answer only once it has sent. */
  private send(index: number, body: FromWorkerBody): void {
    setImmediate(() => {
      if (!this.gone.has(index))
        this.events.line(encodeMessage({ ...body, from: index } as FromWorker).trimEnd(), index);
    });
  }

  /** Runs a step once every live host was sent it; steps run one after another, as a worker's do. */
  private together(message: Step, index: number): void {
    const key = stepKey(message);
    const arrived = this.gathering.get(key) ?? new Set<number>();
    this.gathering.set(key, arrived.add(index));
    if (this.live().some((i) => !arrived.has(i))) return;
    this.gathering.delete(key);
    // Ctrl-C ends the step that runs; the next (the case's clean-up after it) gets a fresh signal.
    this.interrupt = fresh(this.interrupt);
    this.stepsLeft++;
    this.queue = this.queue
      .then(() => this.step(message))
      .then((answers) =>
        answers.forEach((answer, i) => {
          if (this.gone.has(i)) return;
          if ("gone" in answer) {
            this.gone.add(i);
            this.events.exit(i, answer.gone);
          } else this.send(i, answer);
        }),
      )
      .catch((error: Error) => {
        for (const i of this.live()) this.events.exit(i, `fio client: ${error.message}`);
      })
      .finally(() => this.stepsLeft--);
  }

  private async step(message: Step): Promise<Answer[]> {
    switch (message.t) {
      case "hello":
        return this.hello(message);
      case "prepare":
        return this.prepare(message);
      case "start":
        return this.start(message);
      case "finish":
        return this.finish(message.case);
      case "bye":
        return this.servers.map(() => ({ t: "bye", problems: [] }));
    }
  }

  /** Every server reached (bounded), the run's jobfiles kept as the coordinator sent them. */
  private async hello(message: Extract<Step, { t: "hello" }>): Promise<Answer[]> {
    this.session = message;
    this.jobfiles = new Map(message.artifacts.map((a) => [a.path, a.content]));
    const missing = fioMissing();
    const timeoutMs = (this.group.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_S) * 1000;
    const unreachable = await Promise.all(this.servers.map((server) => reach(server, timeoutMs)));
    return this.servers.map((server, i) =>
      unreachable[i] !== undefined
        ? { gone: unreachable[i] }
        : {
            t: "hello",
            protocol: PROTOCOL_VERSION,
            version: VERSION,
            hostname: server.name,
            unavailable: missing ? Object.fromEntries(message.engines.map((e) => [e, missing])) : {},
          },
    );
  }

  private async prepare(message: Extract<Step, { t: "prepare" }>): Promise<Answer[]> {
    const { case: c, target } = message;
    const jobfile = this.jobfiles.get(jobfilePath(c));
    const path = plainDirectory(target)?.path;
    if (!jobfile || path === undefined)
      return this.servers.map(() => ({
        t: "failed",
        case: c.id,
        error: "transport fio runs fio cases on a target with a path only",
      }));
    const env = { ...process.env, ...this.session?.env };
    const open = {
      c,
      dir: resolveEnvRefs(path, env),
      jobfile,
      keep: "keep" in target && target.keep === true,
    };
    this.cases.set(c.id, open);
    const passes = preconditionSections(c);
    if (passes.length === 0) return this.servers.map(() => ({ t: "ready", case: c.id }));
    const run = await this.runClient(open, (prefix) => hostJobfile(jobfile, passes, prefix));
    return this.servers.map((_, i) => {
      const why = failure(run, i);
      return why === undefined
        ? { t: "ready", case: c.id }
        : { t: "failed", case: c.id, error: `fio preconditioning failed: ${why}` };
    });
  }

  private async start(message: Extract<Step, { t: "start" }>): Promise<Answer[]> {
    const { case: id, repetition, warmup } = message;
    const open = this.cases.get(id);
    if (!open) throw new Error(`start of ${id}, which was not prepared`);
    // fio's client is the barrier: `at`, the instant for workers that start on their own, is not waited for.
    // A rate is the group's: each server that runs the case runs its share.
    const live = this.live().length;
    const jobfile =
      open.c.params.rate && live > 1
        ? ownJobfile(rateShare(open.c, live), `each of ${live} servers: its share of the rate`)
        : open.jobfile;
    const run = await this.runClient(open, (prefix) => hostJobfile(jobfile, [id], prefix));
    return this.servers.map((_, i) => ({
      t: "result",
      case: id,
      repetition,
      warmup,
      measurement: hostMeasurement(run, i, open.c),
    }));
  }

  /** The files each host's fio made removed by fio itself (unless the target keeps its data). */
  private async finish(id: string): Promise<Answer[]> {
    const open = this.cases.get(id);
    this.cases.delete(id);
    if (!open || open.keep) return this.servers.map(() => ({ t: "finished", case: id, problems: [] }));
    const run = await this.runClient(open, (prefix) => cleanupJobfile(open.jobfile, id, prefix));
    return this.servers.map((_, i) => {
      const why = failure(run, i);
      return {
        t: "finished",
        case: id,
        problems: why === undefined ? [] : [`removing its files under ${open.dir} failed: ${why}`],
      };
    });
  }

  /** One `fio --client` run over every live host, each with the jobfile `jobfileFor` writes for its prefix. */
  private async runClient(open: OpenCase, jobfileFor: (prefix: string) => string): Promise<ClientRun> {
    const dir = await mkdtemp(join(await this.scratch, "step-"));
    try {
      const output = join(dir, "output.json");
      const args = [...FIO_OUTPUT_ARGS, `--output=${output}`];
      for (const index of this.live()) {
        const file = join(dir, `h${index + 1}.fio`);
        await writeFile(file, jobfileFor(`benchspec-${this.session?.runId ?? "run"}-h${index + 1}`));
        args.push(clientArg(this.servers[index]!), file);
      }
      const startMs = Date.now();
      // fio's client expands ${BENCHSPEC_DIR} before it sends the job: the same path on every host.
      const result = await runGroup(fioBinary(), args, {
        env: { [targetVariable(open.c)]: open.dir },
        cwd: dir,
        label: "fio",
        signal: this.interrupt.signal,
        // On SIGTERM the client tells every server to stop its jobs and waits for them; killed before that
        // (3 s was too short on a loaded machine), it leaves them running to their end, and the cleanup's
        // client then waits for the busy servers (a Ctrl-C took the 30 s of the case).
        stopTimeoutMs: CLIENT_STOP_TIMEOUT_MS,
      });
      const text = await readFile(output, "utf8").catch(() => "");
      const json = text.indexOf("{");
      const outputs = parsed(text);
      const files = await readdir(dir);
      const hosts: ClientRun["hosts"] = new Map();
      for (const index of this.live()) {
        const { host, port } = this.servers[index]!;
        // fio's client writes each server's logs here, named after the job and ending in the server's host.
        const logs: { kind: "bw" | "iops"; text: string }[] = [];
        for (const file of files) {
          const match = /_(bw|iops)\.\d+\.log\.(.+)$/.exec(file);
          if (match?.[2] === host)
            logs.push({ kind: match[1] as "bw" | "iops", text: await readFile(join(dir, file), "utf8") });
        }
        hosts.set(index, { output: outputs.get(`${host},${port}`), logs });
      }
      return {
        startMs,
        aborted: result.aborted,
        said: `${result.output}\n${json > 0 ? text.slice(0, json) : ""}`,
        hosts,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

const CLIENT_STOP_TIMEOUT_MS = 10_000;

/** What makes the messages the hosts were sent one step (they differ in `to`, and `at` by clock offsets). */
const stepKey = (m: Step) =>
  [m.t, "case" in m ? m.case : "", "repetition" in m ? `${m.repetition} ${m.warmup}` : ""].join(" ");

/** A fresh signal for the next step once the last one was aborted (Ctrl-C ends one step, not the session). */
const fresh = (controller: AbortController) =>
  controller.signal.aborted ? new AbortController() : controller;

function parsed(text: string): Map<string, FioOutput> {
  try {
    return text === "" ? new Map() : outputsByServer(text);
  } catch {
    return new Map();
  }
}

/** Why a host's part of a run failed, or undefined when fio reported it without a job error. */
function failure(run: ClientRun, index: number): string | undefined {
  if (run.aborted) return "interrupted";
  const output = run.hosts.get(index)?.output;
  if (!output) return `fio reported nothing for this server; ${fioSaid(run.said)}`;
  const failed = output.jobs.find((job) => job.error !== 0);
  return failed ? `fio job error ${failed.error}; ${fioSaid(run.said)}` : undefined;
}

/**
 * fio's error lines ("<h2> fio: /srv/x is not a directory": each server's start with its own host name),
 * else the tail of what it printed.
 */
function fioSaid(text: string): string {
  const errors = [...new Set(text.split("\n").filter((line) => /(^|> )fio: /.test(line)))];
  return `fio said: ${errors.length > 0 ? errors.slice(0, 5).join(" | ") : outputTail(text) || "nothing"}`;
}

function hostMeasurement(run: ClientRun, index: number, c: Case): Measurement {
  const host = run.hosts.get(index);
  if (run.aborted || !host?.output) return failedMeasurement(run.startMs, Date.now(), failure(run, index)!);
  let measurement: Measurement;
  try {
    // fio reports each server's runtime, not when it started: the host's window is its runtime from the
    // client's start (measurementFromFio's default end).
    measurement = measurementFromFio(host.output, c.id, run.startMs);
  } catch (error) {
    return failedMeasurement(run.startMs, Date.now(), `${(error as Error).message}; ${fioSaid(run.said)}`);
  }
  if (c.params.sample !== undefined)
    measurement.timeseries = seriesFromLogs(host.logs, Math.max(1, Math.round(c.params.sample * 1000)));
  return measurement;
}

function fioMissing(): string | undefined {
  try {
    fioBinary();
    return undefined;
  } catch {
    return "fio is not installed on this machine, which runs fio's client (Debian/Ubuntu: apt-get install fio)";
  }
}

/** Why the server cannot be reached within `timeoutMs`, or undefined once it accepts a connection. */
function reach(server: FioServer, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why && `no fio server answers there (${why}); start one with \`fio --server\``);
    };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs / 1000} s`));
    socket.once("connect", () => done(undefined));
    socket.once("error", (error) => done(error.message));
  });
}
