/**
 * Batch systems' scripts that start the compiled shell script's copies on a host group's hosts and merge
 * their rows (`compile --target <format>`): what a compiler of one is (compile.ts keeps one per format of
 * the language's BATCH_FORMATS, a typed record), and the groups they are for.
 */
import type { Plan } from "../plan/types.js";
import type { Artifact, CompileContext } from "../emit/types.js";
import { scriptCopies, type BatchFormat, type ScriptCopies } from "../spec/transports.js";

export interface BatchCompiler {
  /** Where a group's script goes in the output. */
  path(group: string): string;
  /** How a user starts it, said by compile. */
  run(group: string): string;
  script(plan: Plan, group: string, copies: Required<ScriptCopies>, ctx: CompileContext): string;
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
): Artifact[] {
  return groupCopies(plan).flatMap(({ name, copies }) => {
    const { batch } = copies;
    if (!batch || !formats.includes(batch.format)) return [];
    const compiler = compilers[batch.format];
    return [{ path: compiler.path(name), content: compiler.script(plan, name, { ...copies, batch }, ctx) }];
  });
}
