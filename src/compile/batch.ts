/**
 * The scripts that run a host group's cases on all its hosts at once without benchspec, and whose outputs
 * `benchspec merge` makes one run of several hosts (`compile --target <format>`): a batch system's script
 * that starts the compiled shell script's copies (slurm), or fio's own client driving every host's fio
 * server (fio-client). What a compiler of one is (compile.ts keeps one per format of the language's
 * BATCH_FORMATS, a typed record), and the groups they are for.
 */
import type { Plan } from "../plan/types.js";
import type { Artifact, CompileContext } from "../emit/types.js";
import type { ArtifactFormat } from "../spec/words.js";
import { scriptCopies, type BatchFormat, type ScriptCopies } from "../spec/transports.js";

export interface BatchCompiler {
  /** Where a group's script goes in the output. */
  path(group: string): string;
  /** How a user starts it, said by compile. */
  run(group: string): string;
  /** The artifact format its script runs (the shell script, fio's jobfiles): compiled with it. */
  runs: ArtifactFormat;
  /** The group's script and the files it needs besides `compiled` (every artifact of the compile). */
  files(
    plan: Plan,
    group: string,
    copies: Required<ScriptCopies>,
    ctx: CompileContext,
    compiled: ReadonlyMap<string, Artifact>,
  ): Artifact[];
}

/** The groups the plan's cases run on, in the spec's order, with how the script's copies run there. */
export function groupCopies(plan: Plan): { name: string; transport: string; copies: ScriptCopies }[] {
  const used = new Set(plan.cases.flatMap((c) => (c.params.hosts === undefined ? [] : [c.params.hosts])));
  return Object.entries(plan.hosts).flatMap(([name, group]) =>
    used.has(name) ? [{ name, transport: group.transport, copies: scriptCopies(group) }] : [],
  );
}

/** The scripts of the `formats` for the plan's groups whose transport is one of them. */
export function compileBatchScripts(
  compilers: Readonly<Record<BatchFormat, BatchCompiler>>,
  plan: Plan,
  formats: readonly BatchFormat[],
  ctx: CompileContext,
  compiled: ReadonlyMap<string, Artifact>,
): Artifact[] {
  return groupCopies(plan).flatMap(({ name, copies }) => {
    const { batch } = copies;
    if (!batch || !formats.includes(batch.format)) return [];
    return compilers[batch.format].files(plan, name, { ...copies, batch }, ctx, compiled);
  });
}
