/**
 * Running a case on a group of client hosts at the same instant, written down once:
 *   1. the group's workers started (once per run; again for a later case if one was lost) and greeted
 *   2. every host prepares the case (its target, files or objects to read, preconditioning) and says ready
 *   3. per repetition: every host armed (all that precedes its I/O done), each host's clock read over its
 *      session (offset and bound), one start instant sent, every host's measurement collected, translated
 *      to this machine's clock and merged into one row
 *   4. every host finishes the case (cleanup), bounded in time
 * A host that fails, dies or freezes fails the case with its name and why; the others are stopped; nothing
 * waits without a bound (session.ts); later cases go on.
 */
import { setMaxListeners } from "node:events";
import { failedMeasurement } from "../engines/measurement.js";
import type { Measurement } from "../engines/types.js";
import type { Case, Plan } from "../plan/types.js";
import { mergeHostMeasurements } from "../results/merge-hosts.js";
import { recordLeftover, recordReleased, type RunPaths } from "../results/run-dir.js";
import { envRefsIn } from "../spec/strings.js";
import type { RunObserver } from "../execution/observer.js";
import { runArtifacts } from "../compile/compile.js";
import { writesToTarget } from "../execution/case-steps.js";
import type { ErrorCode } from "../platform/errors.js";
import { PROTOCOL_VERSION, type FromWorker } from "./protocol.js";
import { HostSession, within, type ClockReading, type WorkerLink } from "./session.js";
import { maxOf } from "../rows/stats.js";

export interface CoordinatorOptions {
  plan: Plan;
  paths: RunPaths;
  runId: string;
  signal: AbortSignal;
  observer: RunObserver;
  env: NodeJS.ProcessEnv;
  version: string;
  /** Appends a repetition's row (orchestrate.ts's, so local and remote rows are written alike). */
  record(c: Case, repetition: number, warmup: boolean, measurement: Measurement): void;
}

/** A host whose clock cannot be read closer than this cannot be started with the others. */
export const MAX_CLOCK_ERROR_MS = 50;
/**
 * How far ahead the start instant is set: long enough for the start message to reach every host (armed,
 * they wait on nothing else) — a few of its measured round trips, within 100–500 ms. The floor is for relayed
 * streams (Kubernetes' API server, Slurm's step): one quick round trip does not promise the next message is
 * as quick on a busy machine (a start 111 ms late was seen with a 25 ms floor); the lead is idle time, never
 * measured.
 */
const startLeadMs = (clocks: readonly ClockReading[]) =>
  Math.min(500, 100 + 8 * maxOf(clocks.map((clock) => clock.errorMs)));
/** How long hosts get to finish a case after Ctrl-C, and to confirm their cleanup at the end. */
const INTERRUPTED_FINISH_MS = 10_000;
const FINISH_MS = 120_000;

export class HostCoordinator {
  private readonly sessions = new Map<string, Promise<HostSession>>();

  constructor(private readonly options: CoordinatorOptions) {}

  async runCase(c: Case, steps: readonly { rep: number; warmup: boolean }[]): Promise<void> {
    const { signal } = this.options;
    const session = await this.session(c.params.hosts!);
    const links = session.links;
    const notReady = links.map((link) => whyNot(link, c)).filter((why) => why !== undefined);
    // Ctrl-C meanwhile (the hosts were still starting) fails nothing: --resume runs the case.
    if (notReady.length > 0) return signal.aborted ? undefined : this.failAll(c, steps, notReady.join("; "));

    const writes = this.options.plan.cases.some(
      (other) => other.target === c.target && writesToTarget(other),
    );
    for (const link of links)
      link.send({
        t: "prepare",
        case: c,
        target: this.options.plan.targets[c.target]!,
        writes,
      });
    const answers = await Promise.allSettled(
      links.map((link) => link.expect(["ready", "failed"], (m) => m.case === c.id)),
    );
    const failures = answers.flatMap((answer, i) =>
      answer.status === "rejected"
        ? [(answer.reason as Error).message]
        : answer.value.t === "failed"
          ? [`host ${links[i]!.host}: ${answer.value.error}`]
          : [],
    );
    if (failures.length > 0 && !signal.aborted) this.failAll(c, steps, failures.join("; "));
    else {
      for (const { rep, warmup } of steps) {
        if (signal.aborted) break;
        this.options.observer.repetitionStart?.(c, rep, warmup);
        const measurement = await this.repetition(session, c, rep, warmup);
        // Cut short by Ctrl-C: not recorded, so --resume runs it again.
        if (signal.aborted) break;
        this.options.record(c, rep, warmup, measurement);
        // A host that is gone fails the rest of the case at once, naming it.
        const lost = links.filter((link) => link.dead !== undefined);
        if (lost.length > 0) {
          const rest = steps.slice(steps.findIndex((s) => s.rep === rep && s.warmup === warmup) + 1);
          this.failAll(c, rest, lost.map((link) => link.lost().message).join("; "));
          break;
        }
      }
    }
    await this.finish(links, c);
  }

  /** Says bye to every group's workers; what they could not clean up is said. */
  async close(): Promise<void> {
    for (const [group, opening] of this.sessions) {
      const session = await opening;
      const problems = await session.close(
        this.options.signal.aborted ? INTERRUPTED_FINISH_MS : FINISH_MS,
        (host) => recordReleased(this.options.paths.dir, host, group),
      );
      for (const problem of problems) this.options.observer.message(problem);
    }
    this.sessions.clear();
  }

  private async session(name: string): Promise<HostSession> {
    const existing = this.sessions.get(name);
    if (existing) {
      const session = await existing;
      if (session.links.every((link) => link.dead === undefined)) return session;
      // A host was lost in an earlier case: start the group afresh (a restarted host comes back).
      for (const problem of await session.close(INTERRUPTED_FINISH_MS))
        this.options.observer.message(problem);
    }
    const opening = this.open(name);
    this.sessions.set(name, opening);
    return opening;
  }

  private async open(name: string): Promise<HostSession> {
    const { plan, observer, paths } = this.options;
    const session = new HostSession(name, plan.hosts[name]!, this.carrierEnv(), this.options.signal, {
      created: ({ what, record }) =>
        recordLeftover(paths.dir, { kind: "transport", what, record, group: name }),
      removed: ({ what }) => recordReleased(paths.dir, what, name),
    });
    for (const link of session.links) {
      link.onUnasked = (message) => {
        // Recorded with the host: it is there, not here, that a killed attempt's leftovers are.
        if (message.t === "leftover")
          recordLeftover(paths.dir, {
            ...message.leftover,
            ...(message.target !== undefined && { target: message.target }),
            ...(message.host !== undefined && { host: message.host, group: name }),
          });
      };
    }
    const cases = plan.cases.filter((c) => c.params.hosts === name);
    const engines = [...new Set(cases.map((c) => c.engine))];
    await session.greet(
      {
        protocol: PROTOCOL_VERSION,
        runId: this.options.runId,
        spec: plan.name,
        env: this.secrets(name),
        engines,
        artifacts: await runArtifacts(plan, new Set(cases.map((c) => c.workload)), this.options.version),
      },
      this.options.version,
    );
    observer.message(
      `host group ${name}: ${session.links.map((link) => (link.dead ? `${link.host} (${link.dead})` : link.host)).join(", ")}`,
    );
    return session;
  }

  /**
   * This process's environment without the run's secrets (every ${env:NAME} a target refers to, and any
   * variable holding one of their values): what ssh and srun run with, so no worker's environment has them.
   */
  private carrierEnv(): NodeJS.ProcessEnv {
    const { plan, env } = this.options;
    const names = new Set(
      Object.entries(plan.targets).flatMap(([name, target]) =>
        envRefsIn(target, name).map((ref) => ref.name),
      ),
    );
    const values = new Set(
      [...names]
        .flatMap((name) => [env[name], process.env[name]])
        .filter((value) => value !== undefined && value !== ""),
    );
    return Object.fromEntries(
      Object.entries(process.env).filter(([key, value]) => !names.has(key) && !(value && values.has(value))),
    );
  }

  /** The values of the ${env:NAME} references in the targets of the group's cases: they travel over stdin. */
  private secrets(group: string): Record<string, string> {
    const { plan, env } = this.options;
    const targets = new Set(plan.cases.filter((c) => c.params.hosts === group).map((c) => c.target));
    const names = new Set(
      [...targets].flatMap((name) => envRefsIn(plan.targets[name], name).map((ref) => ref.name)),
    );
    return Object.fromEntries(
      [...names].flatMap((ref) => (env[ref] === undefined ? [] : [[ref, env[ref]!]])),
    );
  }

  private async repetition(
    session: HostSession,
    c: Case,
    rep: number,
    warmup: boolean,
  ): Promise<Measurement> {
    const links = session.links;
    const begun = Date.now();
    const failed = (why: string, code?: ErrorCode) => failedMeasurement(begun, Date.now(), why, code);
    const stopOthers = () => {
      for (const link of links) link.send({ t: "abort" });
    };
    const interrupt = this.options.signal;
    setMaxListeners(0, interrupt);
    interrupt.addEventListener("abort", stopOthers, { once: true });
    const ours = (m: { case: string; repetition: number; warmup: boolean }) =>
      m.case === c.id && m.repetition === rep && m.warmup === warmup;
    try {
      // Every host first does, at its own pace, all that precedes the I/O (its tool started and held, its
      // setup): the start instant then releases I/O alone.
      for (const link of links) link.send({ t: "arm", case: c.id, repetition: rep, warmup });
      const armed = await fromEvery(links, "armed", ours, stopOthers);
      if (armed instanceof Error) return failed(armed.message, "host-lost");
      let clocks: ClockReading[];
      try {
        clocks = await Promise.all(links.map((link) => session.readClock(link)));
      } catch (error) {
        return failed((error as Error).message);
      }
      const unbounded = links.filter((_, i) => clocks[i]!.errorMs > MAX_CLOCK_ERROR_MS);
      if (unbounded.length > 0)
        return failed(
          unbounded
            .map(
              (link) =>
                `host ${link.host}: its clock cannot be read closer than ±${clocks[links.indexOf(link)]!.errorMs.toFixed(0)} ms (limit ±${MAX_CLOCK_ERROR_MS} ms), so it cannot start with the others`,
            )
            .join("; "),
        );
      const at = Date.now() + startLeadMs(clocks) + 2 * maxOf(clocks.map((clock) => clock.errorMs));
      links.forEach((link, i) =>
        link.send({ t: "start", case: c.id, repetition: rep, warmup, at: at + clocks[i]!.offsetMs }),
      );
      const results = await fromEvery(links, "result", ours, stopOthers);
      if (results instanceof Error) return failed(results.message, "host-lost");
      return mergeHostMeasurements(
        results.map((result, i) => ({
          host: links[i]!.host,
          measurement: onOurClock(result.measurement, clocks[i]!.offsetMs),
        })),
        c.params.sample,
      );
    } finally {
      interrupt.removeEventListener("abort", stopOthers);
    }
  }

  private async finish(links: readonly WorkerLink[], c: Case): Promise<void> {
    const bound = this.options.signal.aborted ? INTERRUPTED_FINISH_MS : FINISH_MS;
    await Promise.all(
      links.map(async (link) => {
        if (link.dead !== undefined) return;
        link.send({ t: "finish", case: c.id });
        const finished = await within(
          link.expect("finished", (m) => m.case === c.id),
          bound,
        );
        if (!finished)
          this.options.observer.message(
            `host ${link.host}: cleanup of ${c.id} did not end within ${bound / 1000} s`,
          );
        for (const problem of finished?.problems ?? [])
          this.options.observer.message(`host ${link.host}: ${problem}`);
      }),
    );
  }

  private failAll(c: Case, steps: readonly { rep: number; warmup: boolean }[], why: string): void {
    const now = Date.now();
    for (const { rep, warmup } of steps)
      this.options.record(c, rep, warmup, failedMeasurement(now, now, why));
  }
}

/**
 * Every host's answer of one type, or, once a host is lost, an error naming the lost hosts: the others are
 * stopped rather than left to run their step out.
 */
async function fromEvery<T extends "armed" | "result">(
  links: readonly WorkerLink[],
  type: T,
  match: (message: Extract<FromWorker, { t: T }>) => boolean,
  stopOthers: () => void,
): Promise<Extract<FromWorker, { t: T }>[] | Error> {
  const answers = await Promise.all(
    links.map((link) =>
      link.expect(type, match).catch((error: Error) => {
        stopOthers();
        return error;
      }),
    ),
  );
  const lost = answers.filter((answer) => answer instanceof Error);
  if (lost.length === 0) return answers as Extract<FromWorker, { t: T }>[];
  return new Error(`${lost.map((error) => error.message).join("; ")}; the other hosts were stopped`);
}

/** Why a host cannot run the case before it starts: gone, or without the engine. */
function whyNot(link: WorkerLink, c: Case): string | undefined {
  if (link.dead !== undefined) return link.lost().message;
  const missing = link.hello?.unavailable[c.engine];
  return missing === undefined ? undefined : `host ${link.host}: ${missing}`;
}

/** A host's measurement with its instants moved from its clock to this machine's. */
function onOurClock(measurement: Measurement, offsetMs: number): Measurement {
  const shift = (iso: string) => new Date(Date.parse(iso) - offsetMs).toISOString();
  return {
    ...measurement,
    start: shift(measurement.start),
    end: shift(measurement.end),
    ...(measurement.samples && {
      samples: measurement.samples.map((sample) => ({ ...sample, t: sample.t - offsetMs })),
    }),
  };
}
