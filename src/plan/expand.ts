/**
 * Expansion: Spec → Plan. Each workload's matrix cells are resolved against the layered parameter
 * sources (cell, workload, spec defaults, engine defaults, common defaults) into cases with stable ids,
 * and the rules that need a resolved case (engine vs target, op, bs vs size, destructive…: case-rules.ts)
 * run on each; the expectations are matched to the cases (expectations.ts).
 */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import { suggestSimilar } from "../diagnostics/suggest.js";
import type {
  Case,
  CaseParams,
  ParamSource,
  Plan,
  PlannedLimit,
  PlannedReport,
  PlannedRounds,
} from "./types.js";
import { planRounds } from "./rounds.js";
import {
  COMMON_DEFAULTS,
  defaultEngine,
  engineParams,
  DEFAULT_MIX,
  isEngineIn,
  MIXED_OPS,
  OP_PARAMS,
  type EngineInfo,
  type EngineTable,
} from "../spec/engines.js";
import type { Op } from "../spec/words.js";
import { expandMatrix, type Cell, type Dimension } from "./matrix.js";
import { idFragment } from "../spec/params.js";
import {
  PARAM_NAMES,
  SWEEPABLE_PARAMS,
  type ParamName,
  type ParamValue,
  type Params,
  type Spec,
  type Workload,
} from "../spec/schema.js";
import type { DiagnosticSink } from "../spec/sink.js";
import { resolveTargetVars } from "../spec/vars.js";
import { planLimits } from "./limits.js";
import { checkCase, checkTargetSteps, checkTogether, reportUnused, type Origin } from "./case-rules.js";
import { planExpectations } from "./expectations.js";

export const MAX_CASES = 100_000;

export function expand(
  spec: Spec,
  vars: Record<string, number>,
  specHash: string,
  engines: EngineTable,
  sink: DiagnosticSink,
): Plan {
  const cases: Case[] = [];
  const ids = new Set<string>();
  const rounds = new Map<string, PlannedRounds>();
  for (const [index, workload] of spec.workloads.entries()) {
    const base: SpecPath = ["workloads", index];
    const dimensions = dimensionsOf(workload, base);
    const product = dimensions.reduce((n, d) => n * d.values.length, 1);
    // Checked before the product is built: a 20-line spec must not be able to exhaust memory.
    if (cases.length + product > MAX_CASES) {
      sink.error(
        "too-many-cases",
        cases.length === 0
          ? `the plan would have ${product.toLocaleString("en")} cases here; the limit is ${MAX_CASES.toLocaleString("en")}`
          : `this workload's ${product.toLocaleString("en")} cases would bring the plan to ${(cases.length + product).toLocaleString("en")} (${cases.length.toLocaleString("en")} before it); the limit is ${MAX_CASES.toLocaleString("en")}`,
        base,
      );
      break;
    }
    const cells = expandMatrix(dimensions, workload.matrix?.exclude ?? [], workload.matrix?.include ?? [], [
      ...base,
      "matrix",
      "include",
    ]);
    if (cells.length === 0)
      sink.error("empty-matrix", "the matrix excludes every combination", [...base, "matrix"]);
    if (cases.length + cells.length > MAX_CASES) {
      sink.error(
        "too-many-cases",
        `this workload's ${cells.length.toLocaleString("en")} cases would bring the plan to ${(cases.length + cells.length).toLocaleString("en")}; the limit is ${MAX_CASES.toLocaleString("en")}`,
        base,
      );
      break;
    }
    const unused = new Map<ParamName, Origin>();
    const used = new Set<ParamName>();
    const names = new Set<string>();
    const ops = new Set<Op>();
    const fixed = fixedValues(spec, workload, base);
    for (const cell of cells) {
      const resolved = resolveCase(spec, workload, base, fixed, cell, engines, sink, unused);
      if (!resolved) continue;
      for (const key of Object.keys(resolved.sources) as ParamName[]) used.add(key);
      names.add(resolved.engine);
      ops.add(resolved.op);
      const id = uniqueId(caseId(workload.name, resolved), ids);
      cases.push({ ...resolved, id, index: cases.length });
    }
    reportUnused(unused, used, names, ops, engines, sink);
    checkTargetSteps(cases.slice(cases.length - cells.length), base, sink);
    const planned = planRounds(
      workload,
      cases.filter((c) => c.workload === workload.name),
      base,
      sink,
    );
    if (planned) rounds.set(workload.name, planned);
  }
  const targetVars = resolveTargetVars(spec, sink);
  const limits = planLimits(spec, vars, targetVars, cases, sink);
  return {
    benchspec: 1,
    name: spec.name,
    ...(spec.description !== undefined && { description: spec.description }),
    specHash,
    vars,
    ...(Object.keys(targetVars).length > 0 && { targetVars }),
    targets: spec.targets,
    hosts: spec.hosts ?? {},
    workloads: Object.fromEntries(
      spec.workloads.map((w) => {
        const planned = rounds.get(w.name);
        return [
          w.name,
          {
            ...(w.description !== undefined && { description: w.description }),
            ...(planned && { rounds: planned }),
          },
        ];
      }),
    ),
    cases,
    expect: planExpectations(spec, vars, targetVars, cases, engines, sink),
    report: plannedReport(spec.report, limits),
  };
}

function plannedReport(report: Spec["report"], limits: PlannedLimit[] | undefined): PlannedReport {
  // In the order written (plan.json's bytes stay those of a spec without formulas).
  return Object.fromEntries(
    Object.entries(report ?? {}).map(([key, value]) => [key, key === "limits" ? limits : value]),
  ) as PlannedReport;
}

function dimensionsOf(workload: Workload, base: SpecPath): Dimension[] {
  const dimensions: Dimension[] = [];
  for (const key of SWEEPABLE_PARAMS) {
    const value = workload[key];
    if (Array.isArray(value)) dimensions.push({ key, values: value, path: [...base, key] });
  }
  for (const key of PARAM_NAMES) {
    const values = workload.matrix?.[key];
    if (values) dimensions.push({ key, values, path: [...base, "matrix", key] });
  }
  return dimensions;
}

type ResolvedCase = Omit<Case, "id" | "index">;

const BUILTIN_DEFAULTS = new WeakMap<EngineInfo, Map<Op, ReadonlyMap<ParamName, ParamValue>>>();

/** What a case of this engine and op gets where nobody set a value (a lookup per case × parameter). */
function builtinDefaults(info: EngineInfo, op: Op): ReadonlyMap<ParamName, ParamValue> {
  let byOp = BUILTIN_DEFAULTS.get(info);
  if (!byOp) BUILTIN_DEFAULTS.set(info, (byOp = new Map()));
  let defaults = byOp.get(op);
  if (!defaults) {
    const values: Partial<Record<ParamName, ParamValue>> = {
      ...COMMON_DEFAULTS,
      ...info.defaults,
      ...(MIXED_OPS.has(op) && { read: 50 }),
      ...(op === "mixed" && { mix: { ...DEFAULT_MIX } }),
    };
    defaults = new Map(Object.entries(values) as [ParamName, ParamValue][]);
    byOp.set(op, defaults);
  }
  return defaults;
}

interface UserValue {
  value: ParamValue;
  origin: Origin;
}

/** The values a workload's cells share: the workload's own scalars, then the spec's defaults. */
function fixedValues(spec: Spec, workload: Workload, base: SpecPath): Map<ParamName, UserValue> {
  const fixed = new Map<ParamName, UserValue>();
  for (const key of PARAM_NAMES) {
    const fromWorkload = (workload as Record<string, unknown>)[key];
    const fromDefaults = spec.defaults?.[key];
    if (fromWorkload !== undefined && !Array.isArray(fromWorkload)) {
      fixed.set(key, {
        value: fromWorkload as ParamValue,
        origin: { source: "workload", path: [...base, key] },
      });
    } else if (fromDefaults !== undefined) {
      fixed.set(key, { value: fromDefaults, origin: { source: "defaults", path: ["defaults", key] } });
    }
  }
  return fixed;
}

function resolveCase(
  spec: Spec,
  workload: Workload,
  base: SpecPath,
  fixed: ReadonlyMap<ParamName, UserValue>,
  cell: Cell,
  engines: EngineTable,
  sink: DiagnosticSink,
  unused: Map<ParamName, Origin>,
): ResolvedCase | undefined {
  /** The user's value for a parameter, most specific source first. */
  const userValue = (key: ParamName): UserValue | undefined => {
    const fromCell = cell.values[key];
    if (fromCell !== undefined) return { value: fromCell, origin: cell.origins[key]! };
    return fixed.get(key);
  };

  const resolvedTarget = resolveTarget(spec, userValue("target"), base, sink);
  if (!resolvedTarget) return undefined;
  const { target, together, targetSpec } = resolvedTarget;

  const engineChoice = userValue("engine");
  const engine = (engineChoice?.value as string | undefined) ?? defaultEngine(engines, targetSpec.kind);
  if (!isEngineIn(engines, engine)) {
    const names = Object.keys(engines);
    const hint = suggestSimilar(engine, names);
    sink.error(
      "invalid-value",
      `no engine is named "${engine}"; expected one of ${names.join(", ")}${hint ? ` — did you mean "${hint}"?` : ""}`,
      engineChoice!.origin.path,
    );
    return undefined;
  }
  const info = engines[engine]!;
  if (!info.targetKinds.includes(targetSpec.kind)) {
    const able = Object.entries(engines)
      .filter(([, e]) => e.targetKinds.includes(targetSpec.kind))
      .map(([n]) => n);
    sink.error(
      "engine-target-mismatch",
      `engine ${engine} cannot drive ${targetSpec.kind} target "${target}"; engines for ${targetSpec.kind}: ${able.join(", ")}`,
      engineChoice?.origin.path ?? [...base, "target"],
    );
    return undefined;
  }

  const opChoice = userValue("op");
  if (!opChoice) {
    sink.error("missing-key", `missing required key "op"; ${engine} supports ${info.ops.join(", ")}`, base);
    return undefined;
  }
  const op = opChoice.value as Op;
  if (!info.ops.includes(op)) {
    sink.error(
      "unsupported-op",
      `engine ${engine} has no op "${op}"; it supports ${info.ops.join(", ")}`,
      opChoice.origin.path,
    );
    return undefined;
  }

  const applicable = engineParams(info);
  const builtin = builtinDefaults(info, op);
  const params: Partial<Record<ParamName, ParamValue>> = {};
  const sources: Partial<Record<ParamName, ParamSource>> = {};
  const origins: Partial<Record<ParamName, Origin>> = {};
  for (const key of PARAM_NAMES) {
    const choice = userValue(key);
    const meaningful = applicable.has(key) && (OP_PARAMS[key]?.has(op) ?? true);
    if (choice && !meaningful) {
      // A spec-wide default that does not fit this engine is simply not used; a workload value that fits
      // none of the workload's cases is a mistake (reported once the whole workload is expanded).
      if (choice.origin.source !== "defaults") unused.set(key, choice.origin);
      continue;
    }
    const value = choice?.value ?? builtin.get(key);
    if (value === undefined || !applicable.has(key)) continue;
    params[key] = value;
    sources[key] = choice?.origin.source ?? "builtin";
    if (choice) origins[key] = choice.origin;
  }
  params.target = target;
  params.engine = engine;
  params.op = op;
  sources.engine = engineChoice?.origin.source ?? "builtin";

  const caseParams = params as CaseParams;
  const group = caseParams.hosts === undefined ? undefined : spec.hosts?.[caseParams.hosts];
  if (together && !checkTogether(caseParams, origins, engines, base, sink)) return undefined;
  // Every target of a group is checked as if the case were its alone (a block device's consent…).
  const checked = (together ?? [target]).map((name) =>
    checkCase(caseParams, info, origins, spec.targets[name]!, name, group, base, sink),
  );
  if (checked.includes(false)) return undefined;
  return {
    workload: workload.name,
    target,
    ...(together && { together }),
    targetKind: targetSpec.kind,
    engine,
    op,
    params: caseParams,
    sources,
    dims: PARAM_NAMES.filter((key) => cell.values[key] !== undefined),
  };
}

/**
 * The case's target: one name, or a `{ together }` group whose targets are all of one kind. A group's name
 * (the rows' `target`, the case id's part) is its targets joined by "+", which no target name contains.
 */
function resolveTarget(
  spec: Spec,
  choice: UserValue | undefined,
  base: SpecPath,
  sink: DiagnosticSink,
): { target: string; together?: string[]; targetSpec: Spec["targets"][string] } | undefined {
  const targetNames = Object.keys(spec.targets);
  const value =
    (choice?.value as Params["target"] | undefined) ??
    (targetNames.length === 1 ? targetNames[0] : undefined);
  if (value === undefined) {
    sink.error(
      "missing-key",
      `missing required key "target"; this spec defines ${targetNames.join(", ")}`,
      base,
    );
    return undefined;
  }
  const names = typeof value === "string" ? [value] : value.together;
  // Own keys only: a name such as "constructor" is not a target because every object has it.
  // An unknown name is reported by the targetsExist rule.
  if (!names.every((name) => Object.hasOwn(spec.targets, name))) return undefined;
  const targetSpec = spec.targets[names[0]!]!;
  if (typeof value === "string") return { target: value, targetSpec };
  const path = [...(choice?.origin.path ?? base), "together"];
  const twice = names.findIndex((name, i) => names.indexOf(name) !== i);
  if (twice >= 0) {
    sink.error("duplicate-value", `target "${names[twice]}" is in the group twice`, [...path, twice]);
    return undefined;
  }
  const other = names.findIndex((name) => spec.targets[name]!.kind !== targetSpec.kind);
  if (other >= 0) {
    sink.error(
      "invalid-together",
      `the targets of a group must be of one kind: "${names[0]}" is ${targetSpec.kind}, "${names[other]}" is ${spec.targets[names[other]!]!.kind}`,
      [...path, other],
    );
    return undefined;
  }
  return { target: names.join("+"), together: names, targetSpec };
}

function caseId(workload: string, resolved: ResolvedCase): string {
  const parts = [workload, resolved.target, resolved.op];
  for (const key of resolved.dims) {
    if (key === "target" || key === "op") continue;
    parts.push(`${key}-${idFragment(key, resolved.params[key]!)}`);
  }
  return parts.join(".");
}

function uniqueId(id: string, ids: Set<string>): string {
  let unique = id;
  for (let n = 2; ids.has(unique); n++) unique = `${id}.${n}`;
  ids.add(unique);
  return unique;
}
