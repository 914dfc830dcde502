/**
 * The Plan IR: what a spec expands into. Every case carries fully resolved, typed parameters; nothing
 * downstream (compile, run, report) re-reads the YAML or applies a default.
 */
import { z } from "zod";
import { OPS } from "../spec/words.js";
import {
  EngineNameSchema,
  PARAM_NAMES,
  partialParams,
  TARGET_KINDS,
  type HostGroup,
  type Metric,
  type ParamName,
  type Params,
  type RoundMetric,
  type Spec,
  type Target,
} from "../spec/schema.js";

/** Where a case's parameter value came from. */
const PARAM_SOURCES = ["builtin", "defaults", "workload", "matrix", "include"] as const;
export type ParamSource = (typeof PARAM_SOURCES)[number];

/** A case's parameters: the spec's, each resolved to one value, the target to its name. */
const caseParams = partialParams.extend({
  target: z.string(),
  engine: EngineNameSchema,
  op: z.enum(OPS),
  repeat: z.number().int(),
  warmup: z.number().int(),
});
export type CaseParams = z.output<typeof caseParams>;

/**
 * One case of the plan. Normalized values parse to themselves, so what is sent to a worker is parsed there
 * with this schema (hosts/protocol.ts).
 */
export const CaseSchema = z.strictObject({
  /** Stable, file-name-safe id: workload.target.op followed by the swept parameters. */
  id: z.string().min(1).max(4096),
  index: z.number().int(),
  workload: z.string(),
  /** Its target's name; for a case over several targets at once, theirs joined by "+". */
  target: z.string(),
  /** The targets of a case run on several at once (`target: { together }`), in the spec's order. */
  together: z.array(z.string()).optional(),
  targetKind: z.enum(TARGET_KINDS),
  engine: EngineNameSchema,
  op: z.enum(OPS),
  params: caseParams,
  sources: z.partialRecord(z.enum(PARAM_NAMES as [ParamName, ...ParamName[]]), z.enum(PARAM_SOURCES)),
  /** The parameters that vary across this workload's cases, in matrix order. */
  dims: z.array(z.enum(PARAM_NAMES as [ParamName, ...ParamName[]])),
});
export type Case = z.output<typeof CaseSchema>;

export interface PlannedExpect {
  index: number;
  workload: string;
  where: Partial<Params>;
  metric: Metric;
  atLeast?: number;
  atMost?: number;
  /** The expressions as written, for reports ("min(1000 + 6 * capacityGiB, 3000)"). */
  atLeastText?: string;
  atMostText?: string;
  description?: string;
  /** Ids of the cases the assertion applies to. */
  cases: string[];
  /**
   * The bounds of the cases whose target's vars give them other values than `atLeast`/`atMost` (the
   * spec's vars), by case id.
   */
  byCase?: Record<string, { atLeast?: number; atMost?: number; target: string }>;
}

/**
 * A workload run in rounds to steady state, its defaults applied (docs/language.md, "Rounds"). PTS judges
 * each device on its own: every target of the workload has its own round loop and tracked case.
 */
export interface PlannedRounds {
  /** What `track` says, and per target (in the order its cases come) the one case `where` selects there. */
  track: { where: Partial<Params>; metric: RoundMetric; cases: Record<string, string> };
  window: number;
  /** Percentages (0–100) of the window's average. */
  excursion: number;
  slope: number;
  max: number;
}

/** One target's round loop of a workload: its tracked case and the workload's criteria. */
export type TargetRounds = Omit<PlannedRounds, "track"> & {
  target: string;
  track: { case: string; where: Partial<Params>; metric: RoundMetric };
};

/** A workload's round loops, one per target, in the order the targets' cases come. */
export const targetRounds = ({ track, ...criteria }: PlannedRounds): TargetRounds[] =>
  Object.entries(track.cases).map(([target, tracked]) => ({
    ...criteria,
    target,
    track: { case: tracked, where: track.where, metric: track.metric },
  }));

/** A `report.limits` entry, evaluated: one per target when its formula uses a var a target sets. */
export interface PlannedLimit {
  label: string;
  throughput?: number;
  iops?: number;
  latency?: number;
  interface?: string;
  /** The target it is of: named in the spec, or whose vars it was evaluated with. */
  target?: string;
  /** The expression as written ("min(50 + 0.1 * capacityGiB, 80) * 1MB/s"). */
  text?: string;
}

export type PlannedReport = Omit<NonNullable<Spec["report"]>, "limits"> & { limits?: PlannedLimit[] };

export interface Plan {
  benchspec: 1;
  name: string;
  description?: string;
  /** sha256 of the spec's canonical JSON (after --set), so formatting and comments do not change it. */
  specHash: string;
  vars: Record<string, number>;
  /**
   * Per target that sets `vars`: the spec's vars as its cases see them. Each record inherits the spec's
   * values (`plan.vars`); its own properties, all that JSON shows, are the values that differ.
   */
  targetVars?: Record<string, Record<string, number>>;
  targets: Record<string, Target>;
  /** The spec's groups of client hosts; a case whose `hosts` names one runs on every host of it at once. */
  hosts: Record<string, HostGroup>;
  /** The workloads in spec order, with their descriptions (for reports). */
  workloads: Record<string, { description?: string; rounds?: PlannedRounds }>;
  cases: Case[];
  expect: PlannedExpect[];
  report: PlannedReport;
}

/** The targets a case runs on: its one, or the group of a case over several at once. */
export const targetsOf = (c: Pick<Case, "target" | "together">): readonly string[] =>
  c.together ?? [c.target];

/** The members of a result row that name its case, as every row of the case carries them. */
export const caseFields = (c: Case) => ({
  case: c.id,
  workload: c.workload,
  target: c.target,
  engine: c.engine,
  op: c.op,
  params: c.params,
});

/** A case over several targets at once as its engine sees it on one of them: that target's, the same id. */
export const onTarget = (c: Case, target: string): Case => {
  const { together: _group, ...alone } = c;
  return { ...alone, target, params: { ...c.params, target } };
};

/** Measured repetitions plus warm-ups: what a run will execute (at most, for workloads run in rounds). */
export function countRepetitions(plan: Plan): number {
  return plan.cases.reduce((sum, c) => sum + c.params.repeat + c.params.warmup, 0);
}
