/**
 * What each host transport can run, as the language says it: plan/expand.ts refuses a case a transport
 * cannot run (`unsupported-transport`) before anything starts. A typed record: a transport added to the
 * language without an entry here does not compile.
 */
import type { EngineInfo } from "./engines.js";
import type { Target, Transport } from "./schema.js";
import { plainDirectory } from "./target-kinds.js";

/** Why a transport cannot run a case of `engine` on `target`; undefined when it can. */
type Refusal = (c: { engine: string; info: EngineInfo; target: Target }) => string | undefined;

export const TRANSPORT_REFUSALS: Record<Transport, Refusal | undefined> = {
  ssh: undefined,
  slurm: undefined,
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
