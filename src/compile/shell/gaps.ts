/**
 * What the script does not do that benchspec run does, said by compile for each workload it concerns
 * ("left out: …") and listed in docs/language.md: a case on a host group (the script runs where it is
 * started), autotune (one setting measured), a time series its engine's fragment cannot write, and what an
 * engine's fragment or a target kind's part cannot (Engine.shellGaps, TargetShell.gaps).
 */
import type { Engine } from "../../engines/types.js";
import { targetsOf, type Plan } from "../../plan/types.js";
import { formatDuration } from "../../spec/units.js";
import { targetKind } from "../../targets/index.js";

export function scriptGaps(plan: Plan, engines: Readonly<Record<string, Engine>>, script: string): string[] {
  const lines = new Set<string>();
  for (const c of plan.cases) {
    const p = c.params;
    const gaps: string[] = [];
    if (p.hosts !== undefined)
      gaps.push(
        `runs on the one machine the script is started on, not on every host of group "${p.hosts}"; run it with benchspec run`,
      );
    if (p.autotune && !engines[c.engine]!.shellAutotune)
      gaps.push(
        `autotune is not run: the script measures one setting of ${p.autotune.param} (its case function says which)`,
      );
    if (p.sample !== undefined && !engines[c.engine]!.shellSeries)
      gaps.push(
        `its rows carry no time series (sample ${formatDuration(p.sample)}); run it with benchspec run`,
      );
    gaps.push(...(engines[c.engine]!.shellGaps?.(c) ?? []));
    for (const name of targetsOf(c)) {
      const target = plan.targets[name]!;
      gaps.push(...(targetKind(target.kind).shell.gaps?.(target as never) ?? []));
    }
    for (const gap of gaps) lines.add(`workload "${c.workload}" in ${script}: ${gap}`);
  }
  return [...lines];
}
