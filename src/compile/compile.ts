/**
 * `compile`: Plan → artifacts, all in memory first, so nothing is written when no case can be compiled.
 *   1. check  which cases the requested formats can express (each needs one of them); the others are left
 *             out and said, and a plan none of whose cases can be expressed stops the compile
 *   2. emit   per-case artifacts (fio jobfiles, sdk call sequences), the one shell script, and per Slurm host
 *             group the sbatch script that runs it on every node (`slurm`, which brings the shell script)
 *   3. index  plan.json: every case, its resolved parameters and its artifacts
 *   4. say    per host group, the artifact that runs its cases on every host of it at once
 */
import { caseIdentity } from "../plan/identity.js";
import type { Case, Plan } from "../plan/types.js";
import { engineFacts, loadEngines } from "../engines/index.js";
import { compileShellScript, SHELL_SCRIPT_PATH } from "./shell/script.js";
import { scriptGaps } from "./shell/gaps.js";
import { type Artifact, type CompileContext, NO_ARTIFACTS } from "../emit/types.js";
import { RUN_FILES } from "../results/run-dir.js";
import { ARTIFACT_FORMATS, type ArtifactFormat } from "../spec/words.js";
import { BenchspecError } from "../platform/errors.js";
import { redactUrls } from "../platform/redact.js";
import type { Target } from "../spec/schema.js";
import { targetKindFacts } from "../spec/target-kinds.js";
import { jsonArtifact } from "../emit/writer.js";
import { BATCH_FORMATS, scriptCopies, type BatchFormat } from "../spec/transports.js";
import { compileBatchScripts, groupCopies, type BatchCompiler } from "./batch.js";
import { slurmBatch } from "./slurm.js";
import { fioClientBatch } from "./fio-client.js";
import { kubernetesBatch } from "./kubernetes.js";

/** What `--target` may name: the artifact formats, and the batch systems' scripts around the shell script. */
export const COMPILE_TARGETS = [...ARTIFACT_FORMATS, ...BATCH_FORMATS] as const;
export type CompileTarget = (typeof COMPILE_TARGETS)[number];

const BATCH_COMPILERS: Record<BatchFormat, BatchCompiler> = {
  slurm: slurmBatch,
  "fio-client": fioClientBatch,
  kubernetes: kubernetesBatch,
};

/** Named by the run directory's layout (results/run-dir.ts): a run holds its compiled artifacts. */
export const PLAN_INDEX_PATH: string = RUN_FILES.plan.name;
export const PLAN_FORMAT = "benchspec-plan/1";

export interface CompileOutput {
  artifacts: Artifact[];
  /** One line per workload the formats cannot express (naming the formats that can), or express only in part. */
  leftOut: string[];
  /** How many cases were compiled. */
  compiled: number;
  /** Per host group the cases run on: the artifact that runs them on every host of it at once, and how. */
  hostGroups: string[];
}

export async function compilePlan(
  plan: Plan,
  targets: readonly CompileTarget[],
  version: string,
): Promise<CompileOutput> {
  const ctx: CompileContext = { plan, version };
  const batches = BATCH_FORMATS.filter((format) => targets.includes(format));
  // The batch scripts run the shell script, or fio's jobfiles.
  const formats = ARTIFACT_FORMATS.filter(
    (format) => targets.includes(format) || batches.some((batch) => BATCH_COMPILERS[batch].runs === format),
  );
  const engines = await loadEngines(plan.cases.map((c) => c.engine));
  const leftOut = checkExpressible(plan, formats);
  const artifacts = new Map<string, Artifact>();
  const byCase = new Map<string, Partial<Record<ArtifactFormat, string[]>>>(
    plan.cases.map((c) => [c.id, {}]),
  );
  for (const [engine, cases] of casesByEngine(plan.cases)) {
    for (const format of formats) {
      if (!engineFacts(engine).formats.includes(format)) continue;
      // A format may need files of another (the shell script runs fio through the jobfiles).
      const compiled = engines[engine]!.artifacts?.(cases, format, ctx) ?? NO_ARTIFACTS;
      for (const file of compiled.files) artifacts.set(file.path, file);
      for (const c of cases) {
        const files = compiled.filesOf(c);
        byCase.get(c.id)![format] = format === "shell" ? [SHELL_SCRIPT_PATH, ...files] : files;
      }
    }
  }
  const scripted = plan.cases.filter((c) => !leftOut.has(c.workload));
  if (formats.includes("shell")) {
    if (scripted.length > 0)
      artifacts.set(SHELL_SCRIPT_PATH, compileShellScript({ ...plan, cases: scripted }, ctx, engines));
  }
  const scriptPlan = { ...plan, cases: scripted };
  if (scripted.length > 0)
    for (const file of compileBatchScripts(BATCH_COMPILERS, scriptPlan, batches, ctx, artifacts))
      artifacts.set(file.path, file);
  artifacts.set(PLAN_INDEX_PATH, { path: PLAN_INDEX_PATH, content: planIndex(ctx, byCase) });
  return {
    // Artifacts are shared and kept: a URL in them (an endpoint, a var) never carries its credentials; the
    // script asks for such a URL at run time instead (targets/shell.ts).
    artifacts: shareable(artifacts.values()),
    leftOut: [
      ...leftOut.values(),
      ...(formats.includes("shell")
        ? scriptGaps({ ...plan, cases: scripted }, engines, SHELL_SCRIPT_PATH, (group) => {
            const batch = scriptCopies(plan.hosts[group]!).batch;
            return !batch || BATCH_COMPILERS[batch.format].runs === "shell";
          })
        : []),
    ],
    compiled: plan.cases.filter((c) => !leftOut.has(c.workload)).length,
    hostGroups: [
      ...(formats.includes("shell") || batches.length > 0 ? hostGroupLines(scriptPlan, batches) : []),
      // Said when asked for by name (all formats at once: whichever apply).
      ...batches
        .filter(() => targets.length < COMPILE_TARGETS.length)
        .filter((format) => !groupCopies(scriptPlan).some(({ copies }) => copies.batch?.format === format))
        .map((format) => `--target ${format}: no case runs on a host group it starts, so it wrote nothing`),
    ],
  };
}

/**
 * What runs each host group's cases from the compiled files: the shell script as one copy per host, started
 * by hand (or by any scheduler) with the same way to agree on each start, or the sbatch script that does
 * that on a Slurm group's nodes; `benchspec merge` of the copies' outputs makes one run of several hosts.
 */
function hostGroupLines(plan: Plan, batches: readonly BatchFormat[]): string[] {
  return groupCopies(plan).map(({ name, transport, copies: { count, noun, batch } }) => {
    const copies = `${SHELL_SCRIPT_PATH} on each host at once with BENCHSPEC_GROUP=${name} BENCHSPEC_HOST_COUNT=${count} BENCHSPEC_HOST_INDEX=0…${count - 1} and BENCHSPEC_BARRIER=<a directory they share> (or BENCHSPEC_EPOCH and BENCHSPEC_PERIOD), then benchspec merge of their outputs`;
    const what = !batch
      ? copies
      : batches.includes(batch.format)
        ? BATCH_COMPILERS[batch.format].run(name)
        : `compile --target ${batch.format} writes the script that runs it; or ${copies}`;
    return `host group "${name}" (${transport}, ${count} ${noun}): ${what}`;
  });
}

/**
 * The files engines read when they run the cases of these workloads (fio jobfiles, sdk call sequences; not
 * the shell script, not plan.json), byte for byte as compilePlan writes them: what a host that runs the
 * cases elsewhere is sent.
 */
export async function runArtifacts(
  plan: Plan,
  workloads: ReadonlySet<string>,
  version: string,
): Promise<Artifact[]> {
  const ctx: CompileContext = { plan, version };
  const artifacts = new Map<string, Artifact>();
  const run = plan.cases.filter((c) => workloads.has(c.workload));
  const engines = await loadEngines(run.map((c) => c.engine));
  for (const [engine, cases] of casesByEngine(run)) {
    for (const format of engineFacts(engine).formats) {
      if (format === "shell") continue;
      const compiled = engines[engine]!.artifacts?.(cases, format, ctx) ?? NO_ARTIFACTS;
      for (const file of compiled.files) artifacts.set(file.path, file);
    }
  }
  return shareable(artifacts.values());
}

/** Artifacts are shared and kept: a URL in them never carries its credentials (see compilePlan). */
const shareable = (artifacts: Iterable<Artifact>): Artifact[] =>
  [...artifacts]
    .map(({ path, content }) => ({ path, content: redactUrls(content) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

function casesByEngine(cases: readonly Case[]): Map<string, Case[]> {
  const groups = new Map<string, Case[]>();
  for (const c of cases) {
    const group = groups.get(c.engine);
    if (group) group.push(c);
    else groups.set(c.engine, [c]);
  }
  return groups;
}

/**
 * The workloads none of the formats can express, with why (a case needs at least one of them); an error
 * when that is every case.
 */
function checkExpressible(plan: Plan, formats: readonly ArtifactFormat[]): Map<string, string> {
  const { cases } = plan;
  const problems = new Map<string, string>();
  for (const c of cases) {
    const able = engineFacts(c.engine).formats;
    if (formats.some((format) => able.includes(format))) continue;
    // Said in the command line's word: formats are chosen with --target.
    problems.set(
      c.workload,
      `workload "${c.workload}" (engine ${c.engine}) cannot be compiled to ${formats.join("/")}; targets that can: ${able.join(", ")}`,
    );
  }
  if (cases.every((c) => problems.has(c.workload)))
    throw new BenchspecError("not-compilable", [...problems.values()].join("\n"));
  return problems;
}

function planIndex(
  ctx: CompileContext,
  byCase: Map<string, Partial<Record<ArtifactFormat, string[]>>>,
): string {
  const { plan } = ctx;
  return jsonArtifact(
    ctx,
    PLAN_FORMAT,
    {
      ...(plan.description !== undefined && { description: plan.description }),
      vars: plan.vars,
      targets: redactLiteralSecrets(plan.targets),
      workloads: plan.workloads,
      fio: { args: ["--output-format=json+"] },
      expect: plan.expect,
      report: plan.report,
    },
    {
      key: "cases",
      items: plan.cases.map((c) => ({
        ...caseIdentity(c),
        sources: c.sources,
        dims: c.dims,
        artifacts: byCase.get(c.id) ?? {},
      })),
    },
  );
}

/** A credential written into the spec (a warning at validation) never travels into artifacts. */
function redactLiteralSecrets(targets: Plan["targets"]): Plan["targets"] {
  return Object.fromEntries(
    Object.entries(targets).map(([name, target]) => {
      const safe: Record<string, unknown> = { ...target };
      for (const key of targetKindFacts(target.kind).secrets) {
        const value = safe[key];
        if (typeof value === "string" && !value.startsWith("${env:"))
          safe[key] = "<redacted: written in the spec>";
      }
      return [name, safe as Target];
    }),
  );
}

/** What `--target` names: a comma-separated list, or all. */
export function parseFormats(value: string): CompileTarget[] {
  if (value === "all") return [...COMPILE_TARGETS];
  const targets = value.split(",").map((t) => t.trim());
  for (const target of targets) {
    if (!(COMPILE_TARGETS as readonly string[]).includes(target)) {
      throw new BenchspecError(
        "not-compilable",
        `unknown compile target "${target}"; expected ${COMPILE_TARGETS.join(", ")} or all`,
      );
    }
  }
  return targets as CompileTarget[];
}
