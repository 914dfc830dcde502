/**
 * The coordinator's side of one group of workers for the length of a run: the transport started once, each
 * worker greeted (version, engines it can run), its clock measured, its messages routed to whoever waits for
 * them. Every wait is bounded: a worker whose process ended, that said nothing for SILENCE_LIMIT_MS (a
 * frozen host), or that says it is idle while its answer is awaited (a lost message) is dead, and whatever
 * waited for it gets an error naming the host and why.
 */
import type { HostGroup } from "../spec/schema.js";
import {
  ALIVE_INTERVAL_MS,
  encodeMessage,
  FromWorkerLines,
  PROTOCOL_VERSION,
  SILENCE_LIMIT_MS,
  type FromWorker,
  type ToWorker,
  type ToWorkerBody,
} from "./protocol.js";
import { commandOf, hostNames, namedByWorkers, startupLimitMs, startWorkers } from "./transports.js";
import type { StartedWorkers, TransportMade } from "./types.js";

type Incoming<T extends FromWorker["t"]> = Extract<FromWorker, { t: T }>;

interface Waiter {
  /** `alive` messages saying the worker had nothing to do since this wait began. */
  idleAlives: number;
  match(message: FromWorker): boolean;
  resolve(message: FromWorker): void;
  reject(error: Error): void;
}

const IDLE_ALIVES_LIMIT = 3;

export class WorkerLink {
  /** Why the worker is gone; undefined while it is there. */
  dead: string | undefined;
  lastHeard = Date.now();
  /** Whether it said anything yet: starting (ssh, Node, an `npx` download) may take longer than silence may. */
  heard = false;
  hello: Incoming<"hello"> | undefined;
  private readonly waiters = new Set<Waiter>();
  /** Things the worker reported unasked (leftovers), for the coordinator to record. */
  onUnasked: (message: FromWorker) => void = () => {};

  constructor(
    public host: string,
    readonly index: number,
    private readonly workers: StartedWorkers,
  ) {}

  send(message: ToWorkerBody): void {
    if (this.dead === undefined)
      this.workers.write(this.index, encodeMessage({ ...message, to: this.index } as ToWorker));
  }

  /** Waits for the worker's message of one of `types` that `match` accepts (rejects, naming the host and why, if it dies first). */
  expect<T extends FromWorker["t"]>(
    types: T | readonly T[],
    match: (message: Incoming<T>) => boolean = () => true,
  ): Promise<Incoming<T>> {
    if (this.dead !== undefined) return Promise.reject(this.lost());
    const wanted: readonly string[] = typeof types === "string" ? [types] : types;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        idleAlives: 0,
        match: (message) => wanted.includes(message.t) && match(message as Incoming<T>),
        resolve: (message) => {
          this.waiters.delete(waiter);
          resolve(message as Incoming<T>);
        },
        reject: (error) => {
          this.waiters.delete(waiter);
          reject(error);
        },
      };
      this.waiters.add(waiter);
    });
  }

  receive(message: FromWorker): void {
    this.lastHeard = Date.now();
    this.heard = true;
    for (const waiter of this.waiters) {
      if (waiter.match(message)) return waiter.resolve(message);
    }
    if (message.t !== "alive") return this.onUnasked(message);
    // A worker alive and idle while its answer is awaited will never answer: the request or the answer was
    // lost. One idle `alive` may have been said before the request was read, so it takes IDLE_ALIVES_LIMIT.
    for (const waiter of this.waiters) waiter.idleAlives = message.busy ? 0 : waiter.idleAlives + 1;
    if ([...this.waiters].some((waiter) => waiter.idleAlives >= IDLE_ALIVES_LIMIT))
      this.die(
        `its worker is alive but had nothing to do for ${(IDLE_ALIVES_LIMIT * ALIVE_INTERVAL_MS) / 1000} s while benchspec awaited its answer (a message was lost)`,
      );
  }

  die(why: string): void {
    if (this.dead !== undefined) return;
    const said = this.workers.stderr(this.index).trim();
    this.dead = said ? `${why}; it said: ${said.split("\n").slice(-3).join(" / ")}` : why;
    for (const waiter of this.waiters) waiter.reject(this.lost());
  }

  /** Lost contact with the host: the message names it and says why. */
  lost(): Error {
    return new Error(`host ${this.host}: ${this.dead ?? "gone"}`);
  }
}

export interface ClockReading {
  /** The worker's clock minus the coordinator's, in ms. */
  offsetMs: number;
  /** How far off the offset can be: half the shortest round trip. */
  errorMs: number;
}

export class HostSession {
  readonly links: WorkerLink[];
  private readonly workers: StartedWorkers;
  private readonly watch: NodeJS.Timeout;
  private readonly namedByWorkers: boolean;

  /**
   * `carrierEnv`: the environment of the processes that carry the workers (secrets removed). `signal`: the
   * run's Ctrl-C, which ends the wait for workers that have not said hello yet (it may last the startup limit).
   * `record`: hears of what the transport makes outside this machine, and removes again.
   */
  constructor(
    readonly name: string,
    group: HostGroup,
    carrierEnv: NodeJS.ProcessEnv,
    signal: AbortSignal,
    record: { created(made: TransportMade): void; removed(made: TransportMade): void },
  ) {
    const names = hostNames(group);
    const startupLimit = startupLimitMs(group);
    this.namedByWorkers = namedByWorkers(group);
    const lines = new FromWorkerLines();
    this.workers = startWorkers(
      group,
      commandOf(group),
      {
        line: (line, index) => {
          const message = lines.decode(line);
          const link = this.links[message?.from ?? index ?? -1];
          if (message && link) link.receive(message);
        },
        exit: (index, why) => {
          for (const link of index === undefined ? this.links : [this.links[index]!]) link.die(why);
        },
        created: (made) => record.created(made),
        removed: (made) => record.removed(made),
      },
      carrierEnv,
    );
    this.links = names.map((host, index) => new WorkerLink(host, index, this.workers));
    this.watch = setInterval(() => {
      const now = Date.now();
      // The worker's dead-man's switch: without this, it takes the coordinator for dead (protocol.ts).
      for (const link of this.links) if (!link.dead) link.send({ t: "alive" });
      for (const link of this.links) {
        if (now - link.lastHeard > (link.heard ? SILENCE_LIMIT_MS : startupLimit))
          link.die(
            `no word from its worker for ${Math.round((now - link.lastHeard) / 1000)} s (frozen or cut off)`,
          );
      }
    }, 1_000);
    this.watch.unref();
    const interrupted = () => {
      for (const link of this.links) if (!link.hello) link.die("interrupted before its worker said hello");
    };
    if (signal.aborted) interrupted();
    else signal.addEventListener("abort", interrupted, { once: true });
  }

  /** Greets every worker; a worker that answers with another protocol or version is refused. */
  async greet(
    hello: Omit<Extract<ToWorkerBody, { t: "hello" }>, "t" | "hosts">,
    version: string,
  ): Promise<void> {
    await Promise.all(
      this.links.map(async (link) => {
        link.send({ t: "hello", ...hello, hosts: this.links.length });
        const answer = await link.expect("hello").catch(() => undefined);
        if (!answer) return;
        if (answer.protocol !== PROTOCOL_VERSION || answer.version !== version) {
          link.die(
            `it runs benchspec ${answer.version} (worker protocol ${answer.protocol}), this machine ${version} (protocol ${PROTOCOL_VERSION}); install the same version there`,
          );
          return;
        }
        if (this.namedByWorkers) link.host = answer.hostname;
        link.hello = answer;
      }),
    );
  }

  /** Several round trips; the one with the shortest round trip bounds the offset best (as NTP does). */
  async readClock(link: WorkerLink, rounds = 5): Promise<ClockReading> {
    let best: ClockReading | undefined;
    for (let id = 0; id < rounds; id++) {
      const sent = Date.now();
      link.send({ t: "clock", id });
      const { now } = await link.expect("clock", (m) => m.id === id);
      const received = Date.now();
      const reading = { offsetMs: now - (sent + received) / 2, errorMs: (received - sent) / 2 };
      if (!best || reading.errorMs < best.errorMs) best = reading;
    }
    return best!;
  }

  /**
   * Says bye to every worker and waits (bounded) for them to clean up, then stops the transport. `released`
   * hears of each host whose worker cleaned up everything.
   */
  async close(graceMs: number, released: (host: string) => void = () => {}): Promise<string[]> {
    const problems: string[] = [];
    await Promise.all(
      this.links.map(async (link) => {
        if (link.dead !== undefined) return;
        link.send({ t: "bye" });
        const bye = await within(link.expect("bye"), graceMs);
        if (bye) {
          problems.push(...bye.problems.map((problem) => `host ${link.host}: ${problem}`));
          // By the name the worker records its leftovers under (its own host name).
          if (bye.problems.length === 0) released(link.hello?.hostname ?? link.host);
        } else
          problems.push(
            `host ${link.host}: its worker did not confirm its cleanup within ${graceMs / 1000} s`,
          );
      }),
    );
    clearInterval(this.watch);
    await this.workers.stop(2_000);
    return problems;
  }
}

/** The promise's value, or undefined if it rejects or takes longer than `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    promise.catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);
}
