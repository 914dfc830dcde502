/**
 * dd in the shell script: one `bs_dd` call per case (dd.sh), with the case's op, bs, count, processes, direct
 * flag and data mode.
 */
import { oneSize } from "../../rows/sizes.js";
import type { Case } from "../../plan/types.js";
import { shellLibrary } from "../../emit/shell-assets.js";
import { shellDataMode } from "../../emit/data-mode.js";
import type { CompileContext } from "../../emit/types.js";
import type { ShellScriptWriter } from "../../emit/writer.js";

/** The number of processes: the tuned start value when parallelism is autotuned (the script does not tune). */
function processes(c: Case): number {
  const { autotune, parallel } = c.params;
  return autotune?.param === "parallel" ? autotune.start : parallel!;
}

export function ddShellCase(c: Case, w: ShellScriptWriter, _ctx: CompileContext): void {
  const p = c.params;
  if (p.autotune) w.comment(`autotune is not run by this script: ${p.autotune.param} = ${p.autotune.start}`);
  const n = processes(c);
  w.comment(`${n} × dd ${c.op} of ${oneSize(p.bs!)} × ${p.count} bytes${p.direct ? ", O_DIRECT" : ""}`);
  w.line(
    ["bs_dd", c.op, oneSize(p.bs!), p.count!, n, p.direct ? "direct" : "cached", shellDataMode(c)]
      .map(w.quote)
      .join(" "),
  );
}

/** The bash functions every dd case calls. */
export const ddShellLibrary = shellLibrary(new URL("./dd.sh", import.meta.url));
