/** The host-transport registry: one entry per transport of the language (a missing one is a type error). */
import type { HostGroup, Transport } from "../spec/schema.js";
import { slurmTransport } from "./slurm.js";
import { sshTransport } from "./ssh.js";
import type { HostTransport, StartedWorkers, WorkerEvents } from "./types.js";

const TRANSPORTS: { [T in Transport]: HostTransport<T> } = {
  ssh: sshTransport,
  slurm: slurmTransport,
};

// Each entry takes groups of its own transport; the group's `transport` picks that entry.
type AnyTransport = {
  hostNames(group: HostGroup): string[];
  namedByWorkers: boolean;
  start(group: HostGroup, command: string, events: WorkerEvents): StartedWorkers;
};
const transportOf = (group: HostGroup) => TRANSPORTS[group.transport] as AnyTransport;

export const hostNames = (group: HostGroup): string[] => transportOf(group).hostNames(group);

export const namedByWorkers = (group: HostGroup): boolean => transportOf(group).namedByWorkers;

export const startWorkers = (group: HostGroup, command: string, events: WorkerEvents): StartedWorkers =>
  transportOf(group).start(group, command, events);
