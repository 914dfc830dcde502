import type { Plan } from "../../plan/types.js";
import type { Artifact, CompileContext } from "../types.js";
import { ShellScriptWriter } from "../writer.js";

export const SHELL_SCRIPT_PATH = "benchspec.sh";

// PLACEHOLDER — replaced by the shell emitter work.
export function compileShellScript(_plan: Plan, ctx: CompileContext): Artifact {
  return { path: SHELL_SCRIPT_PATH, content: new ShellScriptWriter(ctx).toString() };
}
