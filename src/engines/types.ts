/**
 * The backend interface. One backend per engine, each in its own folder, registered in index.ts as a
 * Record<EngineName, Backend> (a missing engine is a type error). Shared stages call these hooks and never
 * branch on an engine's name.
 */
import type { EngineName } from "../spec/engines.js";
import type { Case, Plan } from "../plan/types.js";
import type { ResultRow, TimeseriesRow } from "../results/row.js";
import type { PreparedTarget } from "../targets/index.js";
import type { ShellScriptWriter } from "../compile/writer.js";
import type { ErrorCode } from "../platform/errors.js";

export const COMPILE_TARGETS = ["fio", "shell", "sdk"] as const;
export type CompileTarget = (typeof COMPILE_TARGETS)[number];

/** A file of the compiled output, relative to the output directory. */
export interface Artifact {
  path: string;
  content: string;
}

/** Files written for a set of cases, and which of them each case uses. */
export interface CaseArtifacts {
  files: Artifact[];
  filesOf(c: Case): string[];
}

export const NO_ARTIFACTS: CaseArtifacts = { files: [], filesOf: () => [] };

export interface CompileContext {
  plan: Plan;
  /** benchspec's version, for headers. */
  version: string;
}

export interface Backend {
  engine: EngineName;
  /** The compile targets that can express this engine's cases; `shell` is shared by all. */
  targets: readonly CompileTarget[];
  /**
   * The files a compile target needs for this engine's cases (jobfiles for fio and for the shell script,
   * call sequences for sdk), all cases at once: one fio jobfile holds a whole workload.
   */
  artifacts?(cases: readonly Case[], target: CompileTarget, ctx: CompileContext): CaseArtifacts;
  /** Writes the bash functions this engine's case fragments call (once per script, if the plan uses the engine). */
  shellLibrary(w: ShellScriptWriter): void;
  /** The CLIs the shell fragment needs (checked by the script before anything runs). */
  shellTools: readonly string[];
  /**
   * Writes the bash function body that runs one repetition of the case and prints its result row.
   * The function receives the repetition number as $1 and "true"/"false" (warm-up) as $2.
   */
  shellCase(c: Case, w: ShellScriptWriter, ctx: CompileContext): void;
  /**
   * Runs the engine's cases for real (benchspec run). Loaded on demand: the SDKs behind the object engines
   * take seconds to import, which `validate`, `plan` and `compile` should not pay.
   */
  executor(): Promise<Executor>;
}

/** What a measured repetition yields; the runner adds the case's identity and writes the row. */
export type Measurement = Pick<
  ResultRow,
  | "ok"
  | "error"
  | "start"
  | "end"
  | "bytes"
  | "ops"
  | "seconds"
  | "throughput"
  | "iops"
  | "latency"
  | "jobs"
  | "steady"
  | "ttfb"
  | "byOp"
  | "client"
  | "autotune"
> & {
  timeseries?: Omit<TimeseriesRow, "case" | "repetition" | "warmup">[];
  /** What failed, for the runner; not part of the row (its `error` says it to people). */
  errorCode?: ErrorCode;
};

export interface ExecContext {
  /** The prepared target: a benchspec-owned directory (fs) or a checked device path (block). */
  location: string;
  /** The prepared target with its connection (s3, ipfs). */
  target: PreparedTarget;
  /** Unique per run attempt: object keys and data seeds include it. */
  runId: string;
  /** Where compiled artifacts (fio/…) were written for this run. */
  artifactsDir: string;
  /** Where raw tool outputs go. */
  rawDir: string;
  signal: AbortSignal;
}

export interface Executor {
  /** Tools whose versions go into the run's provenance. */
  tools: readonly string[];
  /** Why this machine cannot run the engine (a missing tool), or undefined when it can. */
  unavailable?(): Promise<string | undefined>;
  /** Once per case before its first repetition: preconditioning, data the reads need. */
  prepare?(c: Case, ctx: ExecContext): Promise<void>;
  repetition(c: Case, repetition: number, warmup: boolean, ctx: ExecContext): Promise<Measurement>;
  /** Always after the case (also after a failure or Ctrl-C, with a fresh signal): release what prepare made. */
  finish?(c: Case, ctx: ExecContext): Promise<void>;
}
