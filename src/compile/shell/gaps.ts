/**
 * What the script does not do that benchspec run does, said by compile for each workload it concerns
 * ("left out: …") and listed in docs/language.md: a workload in rounds on a host group (its copies cannot
 * judge the hosts' rows together), autotune (one setting measured), an open loop (`rate`), a time series its engine's fragment cannot write, and what an
 * engine's fragment or a target kind's part cannot (Engine.shellGaps, TargetShell.gaps).
 */
import { scriptLoad } from "../../emit/sdk-format.js";
import type { Engine } from "../../engines/types.js";
import { targetsOf, type Plan } from "../../plan/types.js";
import { formatParam } from "../../spec/params.js";
import { formatDuration } from "../../spec/units.js";
import { targetKind } from "../../targets/index.js";
import { togetherGap } from "./script.js";

export function scriptGaps(
  plan: Plan,
  engines: Readonly<Record<string, Engine>>,
  script: string,
  /** Whether the hosts of a group run copies of the script (a batch format may run fio's jobfiles instead). */
  copiesRunScript: (group: string) => boolean,
): string[] {
  const lines = new Set<string>();
  for (const c of plan.cases) {
    const p = c.params;
    const gaps: string[] = [];
    if (p.hosts !== undefined && plan.workloads[c.workload]?.rounds)
      gaps.push(
        `its rounds to steady state are judged on every host's rows together, which the script's copies on the hosts of group "${p.hosts}" cannot see: they refuse it; run it with benchspec run`,
      );
    if (p.autotune && !(engines[c.engine]!.shellAutotune && scriptLoad(c).rounds))
      gaps.push(
        p.autotune.bound
          ? `its search for the highest ${p.autotune.param} that keeps ${p.autotune.bound.metric} ≤ ${formatDuration(p.autotune.bound.atMost)} is not run: the script measures ${p.autotune.param === "rate" ? `a closed loop of concurrency ${p.concurrency ?? 1}` : "one setting (its case function says which)"}; run it with benchspec run`
          : `autotune is not run: the script measures one setting of ${p.autotune.param} (its case function says which)`,
      );
    if (p.rate !== undefined && !engines[c.engine]!.shellOpenLoop)
      gaps.push(
        `its open loop at rate ${formatParam("rate", p.rate)} is not run: the script starts each operation when one before it ends (a closed loop of concurrency ${p.concurrency ?? 1}), so its latencies are service times; run it with benchspec run`,
      );
    if (
      p.rate !== undefined &&
      p.hosts !== undefined &&
      copiesRunScript(p.hosts) &&
      engines[c.engine]!.shellOpenLoop
    )
      gaps.push(
        `its rate ${formatParam("rate", p.rate)} is the group's in benchspec run (each host its share); the script's copies on the hosts of group "${p.hosts}" each run the whole rate — give each its share (rate ÷ hosts) or run it with benchspec run`,
      );
    if (p.sample !== undefined && !engines[c.engine]!.shellSeries)
      gaps.push(
        `its rows carry no time series (sample ${formatDuration(p.sample)}); run it with benchspec run`,
      );
    gaps.push(...(engines[c.engine]!.shellGaps?.(c) ?? []));
    const together = togetherGap(c, engines[c.engine]!);
    if (together) gaps.push(together);
    for (const name of targetsOf(c)) {
      const target = plan.targets[name]!;
      gaps.push(...(targetKind(target.kind).shell.gaps?.(target as never) ?? []));
    }
    for (const gap of gaps) lines.add(`workload "${c.workload}" in ${script}: ${gap}`);
  }
  return [...lines];
}
