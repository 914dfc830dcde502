/**
 * `compile`: Plan → artifacts, all in memory first, so a case that a target cannot express stops the
 * compile before anything is written.
 *   1. check  every case can be expressed by the requested targets (or, for `all`, by at least shell)
 *   2. emit   per-case artifacts (fio jobfiles, sdk call sequences) and the one shell script
 *   3. index  plan.json: every case, its resolved parameters and its artifacts
 */
import { caseIdentity } from "../plan/identity.js";
import type { Case, Plan } from "../plan/types.js";
import { BACKENDS } from "../engines/index.js";
import { compileShellScript, SHELL_SCRIPT_PATH } from "./shell/script.js";
import {
  COMPILE_TARGETS,
  type Artifact,
  type CompileContext,
  NO_ARTIFACTS,
  type CompileTarget,
} from "../engines/types.js";
import { RUN_FILES } from "../results/run-dir.js";
import type { EngineName } from "../spec/engines.js";
import { BenchspecError } from "../platform/errors.js";
import type { Target } from "../spec/schema.js";
import { targetKindFacts } from "../spec/target-kinds.js";
import { jsonArtifact } from "./writer.js";

/** Named by the run directory's layout (results/run-dir.ts): a run holds its compiled artifacts. */
export const PLAN_INDEX_PATH: string = RUN_FILES.plan.name;
export const PLAN_FORMAT = "benchspec-plan/1";

export interface CompileOutput {
  artifacts: Artifact[];
}

export function compilePlan(plan: Plan, targets: readonly CompileTarget[], version: string): CompileOutput {
  const ctx: CompileContext = { plan, version };
  checkExpressible(plan.cases, targets);
  const artifacts = new Map<string, Artifact>();
  const byCase = new Map<string, Partial<Record<CompileTarget, string[]>>>(plan.cases.map((c) => [c.id, {}]));
  for (const [engine, cases] of casesByEngine(plan.cases)) {
    const backend = BACKENDS[engine];
    for (const target of targets) {
      if (!backend.targets.includes(target)) continue;
      // A target may need files of its own (the shell script runs fio through the jobfiles).
      const compiled = backend.artifacts?.(cases, target, ctx) ?? NO_ARTIFACTS;
      for (const file of compiled.files) artifacts.set(file.path, file);
      for (const c of cases) {
        const files = compiled.filesOf(c);
        byCase.get(c.id)![target] = target === "shell" ? [SHELL_SCRIPT_PATH, ...files] : files;
      }
    }
  }
  if (targets.includes("shell")) artifacts.set(SHELL_SCRIPT_PATH, compileShellScript(plan, ctx));
  artifacts.set(PLAN_INDEX_PATH, { path: PLAN_INDEX_PATH, content: planIndex(ctx, byCase) });
  return {
    artifacts: [...artifacts.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}

function casesByEngine(cases: readonly Case[]): Map<EngineName, Case[]> {
  const groups = new Map<EngineName, Case[]>();
  for (const c of cases) {
    const group = groups.get(c.engine);
    if (group) group.push(c);
    else groups.set(c.engine, [c]);
  }
  return groups;
}

/** With one target, every case must be expressible; with several, each case needs at least one of them. */
function checkExpressible(cases: readonly Case[], targets: readonly CompileTarget[]) {
  const problems = new Map<string, string>();
  for (const c of cases) {
    const able = BACKENDS[c.engine].targets;
    if (targets.some((target) => able.includes(target))) continue;
    problems.set(
      c.workload,
      `workload "${c.workload}" (engine ${c.engine}) cannot be compiled to ${targets.join("/")}; targets that can: ${able.join(", ")}`,
    );
  }
  if (problems.size > 0) throw new BenchspecError("not-compilable", [...problems.values()].join("\n"));
}

function planIndex(
  ctx: CompileContext,
  byCase: Map<string, Partial<Record<CompileTarget, string[]>>>,
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

export function parseTargets(value: string): CompileTarget[] {
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
