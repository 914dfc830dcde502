/**
 * The `slurm` compile target: per Slurm host group the plan's cases run on, one sbatch script
 * (`slurm/<group>.sbatch`) that runs the compiled benchspec.sh on every node of the job at once, as copies
 * that agree on each repetition's start through a barrier directory in the job's output directory (a file
 * system the nodes share, as Slurm's submit directories are), keeps each node's rows apart, and merges them
 * into one run of several hosts with `benchspec merge` where benchspec is installed (else it says how).
 *
 *   #SBATCH --nodes=N, one task per node (the group's `nodes`)
 *   srun   of benchspec.sh on each node: BENCHSPEC_GROUP, _HOST (the node), _HOST_INDEX (SLURM_PROCID),
 *          _HOST_COUNT, _BARRIER, _TIMESERIES, _RUN_ID (the job's), rows to OUT/node-K/results.ndjson
 *   merge  OUT/node-* → OUT/merged (a run directory with its report)
 */
import type { Plan } from "../plan/types.js";
import type { CompileContext } from "../emit/types.js";
import { ShellScriptWriter, shQuote } from "../emit/writer.js";
import { shellAsset } from "../emit/shell-assets.js";
import { SHELL_SCRIPT_PATH } from "./shell/script.js";
import { RUN_FILES } from "../results/run-dir.js";
import type { ScriptCopies } from "../spec/transports.js";
import type { BatchCompiler } from "./batch.js";

export const slurmBatch: BatchCompiler = {
  path: (group) => `slurm/${group}.sbatch`,
  run: (group) => `sbatch slurm/${group}.sbatch (it merges the nodes' rows)`,
  runs: "shell",
  files: (plan, group, copies, ctx) => [
    { path: slurmBatch.path(group), content: slurmScript(plan, group, copies, ctx) },
  ],
};

function slurmScript(
  plan: Plan,
  name: string,
  { count, batch }: Required<ScriptCopies>,
  ctx: CompileContext,
): string {
  const w = new ShellScriptWriter(ctx);
  const cases = plan.cases.filter((c) => c.params.hosts === name).length;
  // sbatch reads its options from the #SBATCH lines before the first command.
  w.line(`#SBATCH --job-name=${sbatchWord(`benchspec-${plan.name}-${name}`)}`);
  w.line(`#SBATCH --nodes=${count}`);
  w.line("#SBATCH --ntasks-per-node=1");
  w.comment(
    `The ${cases} case(s) of spec ${plan.name} on host group ${name}: ${SHELL_SCRIPT_PATH} on all ${count} nodes at once.`,
  );
  w.comment(`Usage: sbatch [sbatch options, e.g. --partition=io] ${slurmBatch.path(name)}`);
  w.comment(`  from the directory compile wrote (or with BENCHSPEC_COMPILED=that directory), on a file`);
  w.comment(`  system the nodes share. Each node's rows go to OUT/node-K/results.ndjson, OUT being`);
  w.comment(`  BENCHSPEC_OUT (default: slurm-${name}-JOBID beside the compiled files); then`);
  w.comment(`  \`benchspec merge OUT/node-* -o OUT/merged\` makes them one run of several hosts (done here`);
  w.comment(`  when benchspec runs on the first node: BENCHSPEC_COMMAND, default the group's command).`);
  w.comment(
    `  Environment for ${SHELL_SCRIPT_PATH} (its targets, BENCHSPEC_START_DELAY, …) reaches every node.`,
  );
  w.line("set -euo pipefail");
  w.assign("BS_GROUP", name);
  w.assign("BS_NODES", count);
  w.assign("BS_MERGE", batch.command ?? "benchspec");
  w.line(`BS_SRUN=(${batch.args.map(shQuote).join(" ")})`);
  w.code(shellAsset(new URL("./slurm.sh", import.meta.url)));
  w.line(`bs_slurm_main ${shQuote(SHELL_SCRIPT_PATH)} ${shQuote(RUN_FILES.plan.name)}`);
  return w.toString();
}

/** A word on an #SBATCH line, which sbatch splits at blanks: the spec's names hold none. */
const sbatchWord = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, "_");
