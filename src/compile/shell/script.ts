/**
 * The `shell` compile target: ONE bash script for the whole spec that needs only bash ≥ 5, coreutils, awk and
 * the CLIs of the engines the plan uses (each Engine's `shellTools`). It prints one NDJSON result row
 * (src/rows/row.ts, source "shell") per case × repetition on stdout; progress goes to stderr.
 *
 * The script, in the order it is written:
 *   1. header       usage, the environment variables that place each target, strict mode, LC_ALL=C
 *   2. runtime      logging, the one JSON-escaping helper, clock, data files, start barrier, worker pool,
 *                   result rows, and the child process that runs one repetition in its own process group
 *                   (runtime.sh); the target kinds' bash functions (src/targets/<kind>/<kind>.sh); init
 *                   and cleanup (lifecycle.sh)
 *   3. engines      each engine's shell library (Engine.shellLibrary), for the engines the plan uses
 *   4. targets      per used target, written by its kind (src/targets/<kind>/shell.ts): setup (once, with
 *                   the safety checks), enter (per repetition, in the child), leave (after each case),
 *                   release (on exit, also after Ctrl-C)
 *   5. cases        one function per case that runs one repetition and prints its row (Engine.shellCase)
 *   6. steps        per (workload, target) that purges or preconditions: one function doing both, in order
 *   7. main         tool check, targets, per case its workload's steps (once per target), then warm-up and
 *                   measured repetitions, each after the case's idle; exit status
 *
 * Every user value reaches the script through shQuote (ShellScriptWriter.quote/assign); `${env:NAME}`
 * references become `"${NAME}"` expansions, so secrets are read at run time and never written here.
 */
import type { Engine } from "../../engines/types.js";
import {
  caseFields,
  onTarget,
  targetRounds,
  targetsOf,
  type Case,
  type Plan,
  type TargetRounds,
} from "../../plan/types.js";
import { roundsFunction, writeRounds } from "./rounds.js";
import { targetWriter } from "../../spec/engines.js";
import { TARGET_KINDS, type Target } from "../../spec/schema.js";
import { unconsentedWrite } from "../../spec/target-kinds.js";
import { targetKind } from "../../targets/index.js";
import type { Artifact, CompileContext } from "../../emit/types.js";
import { ShellScriptWriter, shQuote } from "../../emit/writer.js";
import { shellAsset } from "../../emit/shell-assets.js";
import { targetEnvVar } from "../../emit/shell-words.js";

export const SHELL_SCRIPT_PATH = "benchspec.sh";

/**
 * Why a case over several targets at once is not in the script, if it is not: its engine's fragment runs one
 * target per case. Its fio section (fio/<workload>.fio) still runs by hand, once per target.
 */
export function togetherGap(c: Case, engine: Engine): string | undefined {
  if (!c.together || engine.shellTogether) return undefined;
  return `a case over several targets at once ({ together }) is not run by the shell script: engine ${c.engine} runs one target per case in the script; run it with benchspec run`;
}

/** Tools every script uses besides bash builtins (coreutils are assumed; awk is checked). */
const BASE_TOOLS = ["awk"] as const;

/** `engines`: the descriptors of the plan's engines (loaded by compile.ts). */
export function compileShellScript(
  plan: Plan,
  ctx: CompileContext,
  engines: Readonly<Record<string, Engine>>,
): Artifact {
  const w = new ShellScriptWriter(ctx);
  const used = usedTargets(plan);
  const usedEngines = [...new Set(plan.cases.map((c) => c.engine))].sort();
  const engine = (name: string) => engines[name]!;

  writeHeader(w, plan, used);
  w.line("set -euo pipefail");
  w.line();
  w.code(shellAsset(new URL("./runtime-checks.sh", import.meta.url)));
  w.assign("BS_SPEC", plan.name);
  w.assign("BS_SPEC_HASH", plan.specHash);
  w.assign("BS_GENERATOR", `benchspec ${ctx.version}`);
  w.assign("BS_CASES", plan.cases.length);
  w.assign("BS_ROW_SPEC", JSON.stringify({ spec: plan.name, specHash: plan.specHash }).slice(1, -1));
  const groups = [
    ...new Set(plan.cases.flatMap((c) => (c.params.hosts === undefined ? [] : [c.params.hosts]))),
  ];
  // The host groups BENCHSPEC_GROUP may name (hosts.sh); absent when the cases run on none.
  if (groups.length > 0) w.line(`BS_GROUPS=(${groups.map(shQuote).join(" ")})`);
  w.code(shellAsset(new URL("./runtime.sh", import.meta.url)));
  w.line();
  w.code(shellAsset(new URL("./hosts.sh", import.meta.url)));
  w.line();
  w.comment("---------- targets ----------");
  // Every kind's functions, used or not: the shipped specs' compiled scripts (test/golden) carry them all.
  for (const kind of TARGET_KINDS) {
    const library = targetKind(kind).shell.library;
    if (library === undefined) continue;
    w.line();
    w.code(shellAsset(library));
  }
  w.line();
  w.code(shellAsset(new URL("./lifecycle.sh", import.meta.url)));

  const shared = new Map(
    usedEngines.flatMap((name) => engine(name).shellShared ?? []).map((url) => [url.href, url]),
  );
  for (const library of shared.values()) {
    w.line();
    w.code(shellAsset(library));
  }

  for (const name of usedEngines) {
    w.line();
    w.comment(`---------- engine: ${name} ----------`);
    engine(name).shellLibrary(w);
  }

  const steps = targetSteps(plan.cases);
  /** A case's arguments to bs_run_case (with `counts`: REPEAT WARMUP) and bs_case_select. */
  const targetFn = (c: Case) =>
    c.together && !togetherGap(c, engine(c.engine))
      ? `bs_group_${c.index}`
      : `bs_target_${used.find(([name]) => name === targetsOf(c)[0])![2]}`;
  const caseArgs = (c: Case, counts?: string) =>
    `${c.index} ${shQuote(c.id)} ${targetFn(c)} ${shQuote(metaJson(c))}${counts ? ` ${counts}` : ""} ${steps.get(c.id)?.fn ?? "-"} ${c.params.idle ?? 0}`;
  const caseSelect = (c: Case) => `bs_case_select ${caseArgs(c)}`;
  const purged = new Set(plan.cases.filter((c) => c.params.purge).map((c) => c.target));
  w.line();
  w.comment("---------- targets ----------");
  for (const [name, target, index] of used) writeTarget(w, name, target, index, purged.has(name));
  for (const c of plan.cases)
    if (targetFn(c).startsWith("bs_group_"))
      writeGroup(
        w,
        c,
        c.together!.map((name) => `bs_target_${used.find(([used]) => used === name)![2]}`),
      );

  w.line();
  w.comment("---------- cases: each function runs one repetition and prints its result row ----------");
  for (const c of plan.cases) writeCase(w, c, plan, ctx, engine(c.engine));
  if (steps.size > 0) {
    w.line();
    w.comment("---------- purge and preconditioning: once per workload and target ----------");
    for (const [fn, c] of new Map([...steps.values()].map((step) => [step.fn, step.first]))) {
      writeSteps(w, fn, c, plan, used, engine(c.engine));
    }
  }
  const loops = roundsLoops(plan);
  if (loops.size > 0) {
    w.line();
    w.code(shellAsset(new URL("./rounds.sh", import.meta.url)));
    w.line();
    w.comment(
      "---------- workloads in rounds to steady state: per target, its cases once per round ----------",
    );
    for (const { loop, cases } of loops.values())
      writeRounds(w, loop, cases, caseSelect, `bs_target_${used.find(([name]) => name === loop.target)![2]}`);
  }

  w.line();
  w.comment("---------- main ----------");
  w.block("bs_main() {", () => {
    const tools = new Set<string>(BASE_TOOLS);
    for (const name of usedEngines) for (const tool of engine(name).shellTools) tools.add(tool);
    for (const [name, target] of used) {
      if (purged.has(name))
        for (const tool of targetKind(target.kind).shell.purgeTools ?? []) tools.add(tool);
    }
    w.line(`bs_require_tools ${[...tools].sort().map(shQuote).join(" ")}`);
    const sampled = plan.cases.filter((c) => c.params.sample !== undefined && engine(c.engine).shellSeries);
    if (sampled.length > 0)
      w.line(
        `if [[ -z \${BENCHSPEC_TIMESERIES:-} ]]; then bs_log ${shQuote(`note: ${sampled.length} case(s) record a time series (sample); set BENCHSPEC_TIMESERIES=FILE to keep it`)}; fi`,
      );
    w.line("bs_init");
    const roundsWorkloads = new Map(
      [...loops.values()].map(({ cases: [c] }) => [c!.workload, c!.params.hosts]),
    );
    for (const [workload, group] of roundsWorkloads)
      w.line(`bs_hosts_no_rounds ${shQuote(workload)} ${shQuote(group ?? "")}`);
    // With host groups, a copy started for one (BENCHSPEC_GROUP) runs only its cases and sets up only
    // their targets.
    const onGroups = (cases: readonly Case[], line: string) => {
      if (groups.length === 0) return w.line(line);
      const names = [...new Set(cases.map((c) => c.params.hosts ?? ""))];
      w.line(`if bs_on_group ${names.map(shQuote).join(" ")}; then ${line}; fi`);
    };
    for (const [name, , index] of used) {
      const users = plan.cases.filter((c) => targetsOf(c).includes(name));
      onGroups(users, `BS_RELEASE+=(bs_target_${index}_release)`);
      onGroups(users, `bs_target_${index}_setup`);
    }
    for (const c of plan.cases) {
      const rounds = loops.get(roundsKey(c));
      if (rounds) {
        // A workload in rounds runs at its first case on each target, as benchspec run runs it.
        if (rounds.cases[0] === c) onGroups([c], roundsFunction(c));
        continue;
      }
      onGroups([c], `bs_run_case ${caseArgs(c, `${c.params.repeat} ${c.params.warmup}`)}`);
    }
    w.line("bs_finish");
  });
  w.line('bs_main "$@"');
  return { path: SHELL_SCRIPT_PATH, content: w.toString() };
}

const roundsKey = (c: Case) => `${c.workload}\0${c.target}`;

/** The round loops of the plan's workloads in rounds, one per workload and target, with their cases in order. */
function roundsLoops(plan: Plan): Map<string, { loop: TargetRounds; cases: Case[] }> {
  const loops = new Map<string, { loop: TargetRounds; cases: Case[] }>();
  for (const c of plan.cases) {
    const planned = plan.workloads[c.workload]?.rounds;
    if (!planned) continue;
    const key = roundsKey(c);
    const found = loops.get(key);
    if (found) found.cases.push(c);
    else loops.set(key, { loop: targetRounds(planned).find((r) => r.target === c.target)!, cases: [c] });
  }
  return loops;
}

/** The targets the cases use, in the spec's order, with a stable index for function names. */
function usedTargets(plan: Plan): [string, Target, number][] {
  const names = new Set(plan.cases.flatMap(targetsOf));
  return Object.entries(plan.targets)
    .filter(([name]) => names.has(name))
    .map(([name, target], index) => [name, target, index]);
}

function writeHeader(w: ShellScriptWriter, plan: Plan, used: [string, Target, number][]) {
  if (plan.description !== undefined) w.comment(plan.description);
  w.line("#");
  w.comment("Usage: ./benchspec.sh > results.ndjson   (one JSON result row per case × repetition on stdout)");
  w.comment("Needs bash >= 5, coreutils, awk and the tools checked below. Exit status: 0 when every");
  w.comment("repetition succeeded, 1 when one failed (its row has ok:false), 127 when a tool is missing,");
  w.comment("130 after Ctrl-C. Everything the script creates is removed on exit, also after Ctrl-C.");
  w.line("#");
  w.comment("Where the targets are (environment variables override the spec):");
  for (const [name, target] of used) {
    w.comment(`  ${targetEnvVar(name)}: ${targetKind(target.kind).shell.place(target)}`);
    if (target.description !== undefined) w.comment(`    ${target.description}`);
  }
  w.comment("Also: BENCHSPEC_TIMESERIES (a file the time series of cases with `sample` are appended to, as");
  w.comment(
    "benchspec run's timeseries.ndjson: keep it as timeseries.ndjson beside results.ndjson for the report),",
  );
  w.comment("BENCHSPEC_TMPDIR (scratch space for payload files; default TMPDIR or /tmp),");
  w.comment("BENCHSPEC_LOG_DIR (keep fio's logs there), BENCHSPEC_RUN_ID (the run's id in S3 keys).");
  w.comment("As one of N copies on N hosts, each repetition started on all of them at one instant:");
  w.comment("BENCHSPEC_HOST_COUNT=N, BENCHSPEC_HOST_INDEX (0…N-1), BENCHSPEC_HOST (its name in the rows),");
  w.comment("BENCHSPEC_GROUP (only that host group's cases), and BENCHSPEC_BARRIER (a directory they share)");
  w.comment(
    "or BENCHSPEC_EPOCH and BENCHSPEC_PERIOD; `benchspec merge` of their outputs makes one run of them.",
  );
}

/**
 * The cases whose workload purges or preconditions, with the steps function of their (workload, target) and
 * the first case there, whose purge and precondition the function runs (validation made them all equal).
 */
function targetSteps(cases: readonly Case[]): Map<string, { fn: string; first: Case }> {
  const byKey = new Map<string, { fn: string; first: Case }>();
  const steps = new Map<string, { fn: string; first: Case }>();
  for (const c of cases) {
    if (!c.params.purge && !c.params.precondition) continue;
    const key = `${c.workload}\0${c.target}`;
    if (!byKey.has(key)) byKey.set(key, { fn: `bs_steps_${c.index}`, first: c });
    steps.set(c.id, byKey.get(key)!);
  }
  return steps;
}

function writeSteps(
  w: ShellScriptWriter,
  fn: string,
  c: Case,
  plan: Plan,
  used: [string, Target, number][],
  engine: Engine,
) {
  w.line();
  w.comment(`workload ${c.workload} on target ${c.target}: before its first case there, once`);
  w.block(`${fn}() {`, () => {
    const refused = targetsOf(c)
      .map((name) => ({ name, destroys: unconsentedWrite(plan.targets[name]!) }))
      .find(({ destroys }) => destroys);
    if (refused) {
      // As in writeCase: refused again here rather than trusting validation.
      w.line(
        `bs_fail ${shQuote(`refusing to purge or precondition the ${refused.destroys!.noun} of target ${refused.name}: the spec does not say destructive: true`)}`,
      );
      return;
    }
    // Over several targets at once: each target's purge and preconditioning, one after the other, as run's.
    for (const name of targetsOf(c)) {
      const index = used.find(([used]) => used === name)![2];
      if (c.together) w.line(`bs_target_${index}_enter`);
      if (c.params.purge) w.line(`bs_target_${index}_purge`);
      if (c.params.precondition) engine.shellPrecondition?.(c.together ? onTarget(c, name) : c, w);
    }
  });
}

function writeTarget(w: ShellScriptWriter, name: string, target: Target, index: number, purged: boolean) {
  const fn = `bs_target_${index}`;
  w.line();
  w.comment(`target ${name} (${target.kind})${target.description ? `: ${target.description}` : ""}`);
  const functions = targetKind(target.kind).shell.functions({
    target,
    name,
    fn,
    variable: targetEnvVar(name),
    what: `target ${name}`,
  });
  w.block(`${fn}_setup() {`, () => functions.setup(w));
  const { enter } = functions;
  if (typeof enter === "string") w.line(`${fn}_enter() { ${enter}; }`);
  else w.block(`${fn}_enter() {`, () => enter(w));
  w.line(`${fn}_case() { ${functions.case ?? ":"}; }`);
  w.line(`${fn}_repetition() { ${functions.repetition ?? ":"}; }`);
  w.line(`${fn}_leave() { ${functions.leave ?? ":"}; }`);
  w.line(`${fn}_release() { ${functions.release ?? ":"}; }`);
  if (purged)
    w.line(
      `${fn}_purge() { ${functions.purge ?? `bs_fail ${shQuote(`target ${name} cannot be purged`)}`}; }`,
    );
}

/**
 * The targets of a case run on several at once, as one target of its own (bs_group_INDEX): each hook calls
 * every member's in turn; entering puts each member's place into BS_TPLACES, in the case's order.
 */
function writeGroup(w: ShellScriptWriter, c: Case, members: readonly string[]) {
  const fn = `bs_group_${c.index}`;
  w.line();
  w.comment(`case ${c.id}: targets ${c.together!.join(", ")} at once`);
  w.block(`${fn}_enter() {`, () => {
    w.line("BS_TPLACES=()");
    for (const member of members) w.line(`bs_place_add ${member}_enter`);
  });
  for (const hook of ["case", "repetition", "leave"])
    w.line(`${fn}_${hook}() { ${members.map((member) => `${member}_${hook}`).join("; ")}; }`);
}

function writeCase(w: ShellScriptWriter, c: Case, plan: Plan, ctx: CompileContext, engine: Engine) {
  const p = c.params;
  w.line();
  w.comment(
    `case ${c.index + 1}/${plan.cases.length}: ${c.id} (engine ${c.engine}, ${p.repeat} measured, ${p.warmup} warm-up)`,
  );
  w.block(`bs_case_${c.index}() {`, () => {
    const gap = togetherGap(c, engine);
    if (gap) {
      w.line(`bs_fail ${shQuote(`case ${c.id}: ${gap}`)}`);
      return;
    }
    const refused =
      targetWriter(c.op, p) === undefined
        ? undefined
        : targetsOf(c)
            .map((name) => ({ name, destroys: unconsentedWrite(plan.targets[name]!) }))
            .find(({ destroys }) => destroys);
    if (refused) {
      // Validation already refuses this; the script refuses it again rather than trust its input.
      w.line(
        `bs_fail ${shQuote(`refusing to write to the ${refused.destroys!.noun} of target ${refused.name}: the spec does not say destructive: true`)}`,
      );
      return;
    }
    engine.shellCase(c, w, ctx);
  });
}

/** The row members that are fixed at compile time for a case, as JSON text without the braces. */
function metaJson(c: Case): string {
  return JSON.stringify(caseFields(c)).slice(1, -1);
}
