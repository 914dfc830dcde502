/**
 * The worker: `benchspec worker`, started on a client host by a transport (ssh, srun). It runs the cases the
 * coordinator sends with the same steps as a local run (execution/case-steps.ts) and answers over stdout; see
 * protocol.ts. Long steps (prepare, arming a repetition, starting it, finish, bye) run one after another;
 * `clock` and `abort` are answered at once, also while a repetition runs. Its stdout carries messages only:
 * everything it has to say to people goes to stderr.
 */
import { setMaxListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { writeArtifacts } from "../compile/output.js";
import { isEngineName, loadEngine } from "../engines/index.js";
import type { Case } from "../plan/types.js";
import type { PreparedTarget } from "../targets/index.js";
import type { ArmedRepetition } from "../engines/types.js";
import { failedMeasurement } from "../engines/measurement.js";
import { MeasurementSchema } from "../rows/row.js";
import { z } from "zod";
import {
  armRepetition,
  closeCase,
  FINISH_TIMEOUT_MS,
  openCase,
  type OpenCase,
} from "../execution/case-steps.js";
import {
  ALIVE_INTERVAL_MS,
  SILENCE_LIMIT_MS,
  STARTUP_LIMIT_MS,
  decodeToWorker,
  encodeFromWorker,
  PROTOCOL_VERSION,
  type FromWorker,
  type FromWorkerBody,
  type ToWorker,
} from "./protocol.js";

export interface WorkerOptions {
  /** Which worker this is (messages for others are ignored: srun gives every task the same stdin). */
  index: number;
  /** The host's name in rows and messages (a pod's, with its node); default: the hostname. */
  name?: string;
  version: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  log: (line: string) => void;
}

export async function runWorker(options: WorkerOptions): Promise<void> {
  const { index } = options;
  const host = options.name ?? hostname();
  const send = (message: FromWorkerBody) =>
    options.output.write(encodeFromWorker({ ...message, from: index } as FromWorker));
  /** Steps received and not yet done: the coordinator tells a lost message from a long step by it. */
  let stepsLeft = 0;
  const alive = setInterval(() => send({ t: "alive", busy: stepsLeft > 0 }), ALIVE_INTERVAL_MS);
  // Raw tool outputs stay on the host for the length of the run (the coordinator keeps the rows), in a
  // directory made at hello and put on the run's record first, so `clean` removes it after a killed worker.
  let scratch: string | undefined;
  const prepared: Record<string, PreparedTarget> = {};
  const unusable = new Map<string, string>();
  const cases = new Map<string, CaseEntry>();
  let session: Extract<ToWorker, { t: "hello" }> | undefined;
  /** Ctrl-C on the coordinator (or its end): aborts what runs now; later steps get a fresh signal. */
  let interrupt = new AbortController();
  let queue = Promise.resolve();
  const later = (step: () => Promise<void>) => {
    stepsLeft++;
    queue = queue
      .then(step)
      .catch((error: Error) => options.log(`worker ${index}: ${error.message}`))
      .finally(() => stepsLeft--);
  };

  const steps: { [T in ToWorker["t"]]: (message: Extract<ToWorker, { t: T }>) => void } = {
    hello: (message) =>
      later(async () => {
        session = message;
        scratch = mkdtempSync(join(tmpdir(), "benchspec-worker-"));
        send({ t: "leftover", host, leftover: { kind: "directory", path: scratch } });
        await writeArtifacts(scratch, message.artifacts);
        const unavailable: Record<string, string> = {};
        for (const engine of message.engines) {
          const reason = isEngineName(engine)
            ? await (await (await loadEngine(engine)).executor()).unavailable?.()
            : `this benchspec has no engine ${engine}`;
          if (reason) unavailable[engine] = reason;
        }
        send({
          t: "hello",
          protocol: PROTOCOL_VERSION,
          version: options.version,
          hostname: host,
          unavailable,
        });
      }),
    clock: (message) => send({ t: "clock", id: message.id, now: Date.now() }),
    prepare: (message) =>
      later(async () => {
        const c = message.case;
        if (!session || !scratch) throw new Error("prepare before hello");
        interrupt = fresh(interrupt);
        const open = await openCase(c, {
          target: message.target,
          prepared,
          unusable,
          // Each host has a run id of its own: hosts sharing storage (a shared file system, one bucket) never
          // touch each other's files or keys.
          runId: `${session.runId}-h${index + 1}`,
          spec: session.spec,
          writes: message.writes,
          env: { ...process.env, ...session.env },
          created: (leftover) => send({ t: "leftover", target: c.target, host, leftover }),
          artifactsDir: scratch,
          rawDir: scratch,
          signal: interrupt.signal,
          hostShare: { index, count: session.hosts },
        });
        cases.set(c.id, { c, open });
        if (open.failure === undefined) send({ t: "ready", case: c.id });
        else send({ t: "failed", case: c.id, error: (open.failure as Error).message });
      }),
    arm: (message) =>
      later(async () => {
        const entry = cases.get(message.case);
        if (!entry) throw new Error(`arm of ${message.case}, which was not prepared`);
        // One repetition is armed at a time: one whose start never came is released first.
        await disarm(entry);
        entry.armed = {
          repetition: message.repetition,
          warmup: message.warmup,
          armed: await armRepetition(entry.open, entry.c, message.repetition, message.warmup),
        };
        send({ t: "armed", case: message.case, repetition: message.repetition, warmup: message.warmup });
      }),
    start: (message) =>
      later(async () => {
        const entry = cases.get(message.case);
        if (!entry) throw new Error(`start of ${message.case}, which was not prepared`);
        const { armed } = entry;
        const ready =
          armed?.repetition === message.repetition && armed.warmup === message.warmup
            ? armed.armed
            : undefined;
        if (ready) entry.armed = undefined;
        else await disarm(entry);
        // A start that was not armed first is armed now: late, but measured all the same.
        const repetition =
          ready ?? (await armRepetition(entry.open, entry.c, message.repetition, message.warmup));
        await untilClock(message.at, interrupt.signal);
        const measured = await repetition.go();
        // Said here, as a failed repetition: a figure the coordinator's parse refuses (NaN goes as null)
        // would make the whole result a line it cannot read.
        const checked = MeasurementSchema.safeParse(measured);
        const measurement = checked.success
          ? measured
          : failedMeasurement(
              Date.parse(measured.start),
              Date.parse(measured.end),
              `the measurement is not one a row can hold: ${z.prettifyError(checked.error)}`,
            );
        send({
          t: "result",
          case: message.case,
          repetition: message.repetition,
          warmup: message.warmup,
          measurement,
        });
      }),
    abort: () => interrupt.abort(),
    alive: () => {},
    finish: (message) =>
      later(async () => {
        const entry = cases.get(message.case);
        cases.delete(message.case);
        const problems = entry
          ? [
              ...(await disarm(entry)),
              ...(await closeCase(entry.open, entry.c, interrupt.signal, FINISH_TIMEOUT_MS)),
            ]
          : [];
        send({ t: "finished", case: message.case, problems });
      }),
    bye: () => later(() => leave()),
  };

  let left: Promise<void> | undefined;
  const leave = () =>
    (left ??= (async () => {
      const problems: string[] = [];
      for (const [id, entry] of cases) {
        problems.push(...(await disarm(entry)));
        problems.push(...(await closeCase(entry.open, entry.c, interrupt.signal, FINISH_TIMEOUT_MS)));
        cases.delete(id);
      }
      for (const [name, target] of Object.entries(prepared))
        await target
          .cleanup()
          .catch((error: Error) => problems.push(`cleanup of target ${name} failed: ${error.message}`));
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      clearInterval(alive);
      send({ t: "bye", problems });
    })());

  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  setMaxListeners(0, interrupt.signal);
  // The coordinator says something every second (srun broadcasts every worker's lines to all: any counts).
  // Silence past the limit is a dead coordinator whose carrier left this stdin open: stop as at its end.
  let lastHeard = Date.now();
  let silent = false;
  const deadman = setInterval(() => {
    if (Date.now() - lastHeard <= (session ? SILENCE_LIMIT_MS : STARTUP_LIMIT_MS)) return;
    silent = true;
    options.log(
      `worker ${index}: no word from benchspec for ${Math.round((Date.now() - lastHeard) / 1000)} s: stopping`,
    );
    lines.close();
  }, ALIVE_INTERVAL_MS);
  for await (const line of lines) {
    lastHeard = Date.now();
    const message = decodeToWorker(line);
    if (!message || message.to !== index) continue;
    (steps[message.t] as (m: ToWorker) => void)(message);
    if (message.t === "bye") break;
  }
  clearInterval(deadman);
  // End of input (or silence) without bye: the coordinator is gone. Stop, clean up, say so (nobody may hear it).
  if (silent) options.log(`worker ${index}: cleaning up after a coordinator that went silent`);
  interrupt.abort();
  later(() => leave());
  await queue;
}

interface CaseEntry {
  c: Case;
  open: OpenCase;
  /** The repetition armed for the coordinator's next start. */
  armed?: { repetition: number; warmup: boolean; armed: ArmedRepetition };
}

/** Releases the case's armed repetition whose start never came; returns what failed. */
async function disarm(entry: CaseEntry): Promise<string[]> {
  const armed = entry.armed;
  entry.armed = undefined;
  return (
    (await armed?.armed.disarm().then(
      () => [],
      (error: Error) => [`releasing an armed repetition of ${entry.c.id} failed: ${error.message}`],
    )) ?? []
  );
}

/** A fresh signal for the next step once the last one was aborted (Ctrl-C ends one step, not the session). */
function fresh(controller: AbortController): AbortController {
  if (!controller.signal.aborted) return controller;
  const next = new AbortController();
  setMaxListeners(0, next.signal);
  return next;
}

/** Waits until the worker's clock reads `at` (Unix ms), or the signal aborts. */
function untilClock(at: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, at - Date.now()));
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
