/**
 * What each host transport can run, as the language says it: plan/expand.ts refuses a case a transport
 * cannot run (`unsupported-transport`) before anything starts; and how compile's script runs a group's
 * cases on its hosts. Typed records: a transport added to the language without its entries does not compile.
 */
import type { EngineInfo } from "./engines.js";
import type { HostGroup, Target, Transport } from "./schema.js";
import { plainDirectory } from "./target-kinds.js";

/** Why a transport cannot run a case of `engine` on `target`; undefined when it can. */
type Refusal = (c: { engine: string; info: EngineInfo; target: Target }) => string | undefined;

export const TRANSPORT_REFUSALS: Record<Transport, Refusal | undefined> = {
  ssh: undefined,
  slurm: undefined,
  kubernetes: undefined,
  // fio's servers run fio jobfiles only, in a directory every host has.
  fio: ({ engine, info, target }) => {
    if (!info.formats.includes("fio"))
      return `fio's servers run fio jobs only, not engine ${engine}; use transport ssh or slurm`;
    const directory = plainDirectory(target);
    if (!directory)
      return `only directories: the ${target.kind} target's safety checks cannot run on fio's servers`;
    if (directory.path === undefined)
      return `the ${target.kind} target needs a path, a directory that exists on every host (fio's servers make none)`;
    return undefined;
  },
};

/**
 * How the compiled script runs a group's cases without benchspec: one copy per host (how many, and what the
 * hosts are called), and the batch system's script that starts the copies when the transport is one
 * (`compile --target <format>`: its extra arguments and the command that runs benchspec there, for the merge).
 */
export interface ScriptCopies {
  count: number;
  noun: "hosts" | "nodes" | "pods";
  batch?: { format: BatchFormat; args: readonly string[]; command?: string };
}
export const BATCH_FORMATS = ["slurm", "fio-client", "kubernetes"] as const;
export type BatchFormat = (typeof BATCH_FORMATS)[number];

const TRANSPORT_COPIES: { [T in Transport]: (group: Extract<HostGroup, { transport: T }>) => ScriptCopies } =
  {
    ssh: (group) => ({ count: group.hosts.length, noun: "hosts" }),
    slurm: (group) => ({
      count: group.nodes,
      noun: "nodes",
      batch: { format: "slurm", args: group.srun ?? [], ...(group.command && { command: group.command }) },
    }),
    kubernetes: (group) => ({
      count: group.pods,
      noun: "pods",
      // The runner script takes the group's cluster, namespace and pods from the group itself.
      batch: { format: "kubernetes", args: [] },
    }),
    // fio's client is given every server: they are the arguments of its script.
    fio: (group) => ({
      count: group.hosts.length,
      noun: "hosts",
      batch: { format: "fio-client", args: group.hosts },
    }),
  };

export const scriptCopies = (group: HostGroup): ScriptCopies =>
  (TRANSPORT_COPIES[group.transport] as (group: HostGroup) => ScriptCopies)(group);
