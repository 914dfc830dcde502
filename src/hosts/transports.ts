/** The host-transport registry: one entry per transport of the language (a missing one is a type error). */
import type { HostGroup, Transport } from "../spec/schema.js";
import { STARTUP_LIMIT_MS } from "./protocol.js";
import { fioTransport } from "./fio.js";
import { kubernetesTransport } from "./kubernetes.js";
import { slurmTransport } from "./slurm.js";
import { sshTransport } from "./ssh.js";
import type { HostTransport, StartedWorkers, WorkerEvents } from "./types.js";

const TRANSPORTS: { [T in Transport]: HostTransport<T> } = {
  ssh: sshTransport,
  slurm: slurmTransport,
  fio: fioTransport,
  kubernetes: kubernetesTransport,
};

// Each entry takes groups of its own transport; the group's `transport` picks that entry.
type AnyTransport = {
  hostNames(group: HostGroup): string[];
  namedByWorkers: boolean;
  start(group: HostGroup, command: string, events: WorkerEvents, env: NodeJS.ProcessEnv): StartedWorkers;
  startupLimitMs?(group: HostGroup): number;
  removeLeftover?(group: HostGroup, record: unknown, env: NodeJS.ProcessEnv): Promise<boolean>;
  removeDirectory?(group: HostGroup, host: string, path: string): Promise<void>;
};
const transportOf = (group: HostGroup) => TRANSPORTS[group.transport] as AnyTransport;

export const hostNames = (group: HostGroup): string[] => transportOf(group).hostNames(group);

export const namedByWorkers = (group: HostGroup): boolean => transportOf(group).namedByWorkers;

export const startupLimitMs = (group: HostGroup): number =>
  transportOf(group).startupLimitMs?.(group) ?? STARTUP_LIMIT_MS;

export const startWorkers = (
  group: HostGroup,
  command: string,
  events: WorkerEvents,
  env: NodeJS.ProcessEnv,
): StartedWorkers => transportOf(group).start(group, command, events, env);

/** How benchspec is started on the group's hosts: its `command`, where the transport has one. */
export const commandOf = (group: HostGroup): string =>
  ("command" in group ? group.command : undefined) ?? "benchspec";

/** Removes a directory on a host of the group, through its transport (`benchspec clean`). */
export async function removeRemoteDirectory(group: HostGroup, host: string, path: string): Promise<void> {
  const transport = transportOf(group);
  if (!transport.removeDirectory)
    throw new Error(`it is on host ${host}, which benchspec cannot reach to remove it: remove it there`);
  await transport.removeDirectory(group, host, path);
}

/** Removes what the group's transport made and put on record (`benchspec clean`); whether it was there. */
export async function removeTransportLeftover(
  group: HostGroup,
  record: unknown,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const transport = transportOf(group);
  if (!transport.removeLeftover) throw new Error(`transport ${group.transport} makes no such thing`);
  return transport.removeLeftover(group, record, env);
}
