/**
 * The host-transport interface. One transport per way of reaching client hosts (ssh, slurm, fio), each in
 * its own module, registered in transports.ts as a Record<Transport, HostTransport> (a missing one is a type
 * error). A transport starts one worker per host and moves lines; it knows nothing of what they say. (fio's
 * hosts run no worker, only `fio --server`: that transport answers for them here, fio-servers.ts.)
 */
import type { HostGroup, Transport } from "../spec/schema.js";

export type GroupOf<T extends Transport> = Extract<HostGroup, { transport: T }>;

export interface StartedWorkers {
  /** Sends one line to worker `index` (a transport with one shared stdin sends it to all: lines say `to`). */
  write(index: number, line: string): void;
  /** The last lines of what the worker (or its transport) printed that were not messages, for errors. */
  stderr(index: number): string;
  /** Ends the workers: their stdin closed at once, their processes stopped after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export interface WorkerEvents {
  /** A line one of the workers printed; `index` when the transport knows whose it is. */
  line(line: string, index: number | undefined): void;
  /** A worker's process (or the transport's one process for all, index undefined) ended. */
  exit(index: number | undefined, why: string): void;
  /**
   * Something the transport is about to make outside this machine (a Kubernetes Job): put on the run's
   * record before it exists, so that `clean` removes it (`removeLeftover`) after benchspec was killed.
   */
  created(made: TransportMade): void;
  /** It removed that thing itself: `clean` need not reach for it. */
  removed(made: TransportMade): void;
}

export interface TransportMade {
  /** In words, for the one who reads what clean removed; unique within the run. */
  what: string;
  /** What the transport needs to find and remove it, in its own shape. */
  record: unknown;
}

export interface HostTransport<T extends Transport> {
  /** The hosts of the group as people read them, before anything starts (plan, messages). */
  hostNames(group: GroupOf<T>): string[];
  /** The hosts are known by name only once their workers say it (Slurm picks the nodes). */
  namedByWorkers: boolean;
  /**
   * Starts `benchspec worker` on every host of the group. `command` is the group's command, or this
   * benchspec's own when the group gives none. `env` is the environment of the local processes that carry
   * the workers (ssh, srun): the run's secrets are not in it (they travel in `hello`), so none can reach a
   * worker's environment (srun exports its own to every task).
   */
  start(group: GroupOf<T>, command: string, events: WorkerEvents, env: NodeJS.ProcessEnv): StartedWorkers;
  /** How long a worker may take to say its first word (default: the protocol's STARTUP_LIMIT_MS). */
  startupLimitMs?(group: GroupOf<T>): number;
  /** Removes what `created` put on record (`benchspec clean`); resolves to whether it was still there. */
  removeLeftover?(group: GroupOf<T>, record: unknown, env: NodeJS.ProcessEnv): Promise<boolean>;
  /**
   * Removes a directory on one host of the group (`benchspec clean` of what a killed run left there);
   * rejects with why it could not. Absent: the transport cannot run a command there.
   */
  removeDirectory?(group: GroupOf<T>, host: string, path: string): Promise<void>;
}
