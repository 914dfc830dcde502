/**
 * The engine descriptor: what the stages above the language do with an engine's cases. One per engine, in
 * its folder's index.ts, loaded through the registry (registry.ts). Shared stages call these hooks and never
 * branch on an engine's name.
 */
import type { Case } from "../plan/types.js";
import type { Measurement } from "../rows/row.js";
import type { Leftover, PreparedTarget } from "../targets/types.js";
import type { ShellScriptWriter } from "../emit/writer.js";
import type { CaseArtifacts, CompileContext } from "../emit/types.js";
import type { ArtifactFormat } from "../spec/words.js";
import type { Target } from "../spec/schema.js";
import type { ProvenanceTool } from "../platform/tool-version.js";

export interface Engine {
  engine: string;
  /**
   * The files a compile target needs for this engine's cases (jobfiles for fio and for the shell script,
   * call sequences for sdk), all cases at once: one fio jobfile holds a whole workload.
   */
  artifacts?(cases: readonly Case[], target: ArtifactFormat, ctx: CompileContext): CaseArtifacts;
  /** Bash libraries (.sh files) it shares with other engines: written once per script, before the engines' own. */
  shellShared?: readonly URL[];
  /** Writes the bash functions this engine's case fragments call (once per script, if the plan uses the engine). */
  shellLibrary(w: ShellScriptWriter): void;
  /** The CLIs the shell fragment needs (checked by the script before anything runs). */
  shellTools: readonly string[];
  /**
   * Writes the bash function body that runs one repetition of the case and prints its result row.
   * The function receives the repetition number as $1 and "true"/"false" (warm-up) as $2.
   */
  shellCase(c: Case, w: ShellScriptWriter, ctx: CompileContext): void;
  /** Its shell fragment runs a case's autotune as run does (rounds, the knee, the row's `autotune`). */
  shellAutotune?: boolean;
  /**
   * Its shell fragment runs a case over several targets at once (`together`) as run does: one process per
   * target, each at its place in BS_TPLACES ("dir:PATH" or "dev:DEVICE", in the case's order), released
   * together, one row of them all.
   */
  shellTogether?: boolean;
  /** Its shell fragment writes a case's time series (`sample`) to BENCHSPEC_TIMESERIES, as run's timeseries.ndjson. */
  shellSeries?: boolean;
  /** Whether its script fragment keeps an open loop's schedule (`rate`; fio's jobfile does, with its own). */
  shellOpenLoop?: boolean;
  /** What benchspec run does for this case that the engine's shell fragment does not (compile says each). */
  shellGaps?(c: Case): string[];
  /** Writes the lines that run the case's `precondition` (once per workload and target); only engines that have it. */
  shellPrecondition?(c: Case, w: ShellScriptWriter): void;
  /** Tools whose versions go into a run's provenance when the plan uses this engine. */
  tools: readonly ProvenanceTool[];
  /** The client libraries (npm packages) the engine is built on, whose versions go into every provenance. */
  libraries: readonly string[];
  /**
   * Removes what one of its `engine` leftovers on this target stands for (`benchspec clean`, after a
   * killed run); false when nothing of it was there.
   */
  removeLeftover?(target: Target, record: unknown, env: NodeJS.ProcessEnv): Promise<boolean>;
  /**
   * Runs the engine's cases for real (benchspec run). Loaded on demand: the SDKs behind the object engines
   * take seconds to import, which `validate`, `plan` and `compile` should not pay.
   */
  executor(): Promise<Executor>;
}

/** What a measured repetition yields (its schema is the row's: workers send it to the coordinator). */
export type { Measurement };

export interface HostShare {
  /** 0-based. */
  index: number;
  count: number;
}

export interface ExecContext {
  /** Where the case works: its benchspec-owned directory (fs), a checked device path (block), the server's address. */
  location: string;
  /** The prepared target, with its connection for kinds that have one (narrowed by preparedAs). */
  target: PreparedTarget;
  /** Unique per run attempt: object keys and data seeds include it. */
  runId: string;
  /**
   * On a host group: which host this is of how many, all running the case at once. An open loop's rate is
   * the group's: each host keeps its share of it (load/schedule.ts).
   */
  hostShare?: HostShare;
  /** Where compiled artifacts (fio/…) were written for this run. */
  artifactsDir: string;
  /** Where raw tool outputs go. */
  rawDir: string;
  signal: AbortSignal;
  /**
   * Something the engine makes outside the run directory (a scratch directory named benchspec-…), said
   * before it is used: it goes on the run's record, so `clean` removes it after a killed run.
   */
  created(leftover: Leftover): void;
}

/** A repetition made ready to start: all that precedes its I/O is done, and `go` starts the I/O at once. */
export interface ArmedRepetition {
  /** Starts the I/O now and measures it; the measurement's `start` is the instant its I/O began. */
  go(): Promise<Measurement>;
  /** Releases what arming made when `go` will not be called (the start never came: a host lost, Ctrl-C). */
  disarm(): Promise<void>;
}

interface ExecutorSteps {
  /**
   * It runs a case's autotune inside one repetition itself (its rounds share the repetition's setup: the
   * objects a GET reads); otherwise each round is a repetition of its own at the round's value.
   */
  tunes?: boolean;
  /** Why this machine cannot run the engine (a missing tool), or undefined when it can. */
  unavailable?(): Promise<string | undefined>;
  /** Once per case before its first repetition: data the reads need. */
  prepare?(c: Case, ctx: ExecContext): Promise<void>;
  /**
   * The case's `precondition`, run once per workload and target before the workload's first case there
   * (src/run/target-steps.ts), after the purge; engines without the parameter leave it out.
   */
  precondition?(c: Case, ctx: ExecContext): Promise<void>;
  /** Always after the case (also after a failure or Ctrl-C, with a fresh signal): release what prepare made. */
  finish?(c: Case, ctx: ExecContext): Promise<void>;
}

/**
 * An engine runs a repetition in one step, or in two: `arm` does everything that precedes the I/O (the
 * tool's processes started and held at a gate, the unmeasured setup) so that `go` starts the I/O itself at
 * the instant hosts agreed on. Runners arm then go the same way for both (execution/case-steps.ts).
 */
export type Executor = ExecutorSteps &
  (
    | {
        repetition(c: Case, repetition: number, warmup: boolean, ctx: ExecContext): Promise<Measurement>;
        arm?: never;
      }
    | {
        arm(c: Case, repetition: number, warmup: boolean, ctx: ExecContext): Promise<ArmedRepetition>;
        repetition?: never;
      }
  );
