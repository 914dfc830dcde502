/**
 * The target-kind interface. One entry per kind, each in its own folder, registered in index.ts (a missing
 * kind is a type error). Shared stages call these hooks and never branch on a kind's name.
 */
import { z } from "zod";
import type { ShellScriptWriter } from "../emit/writer.js";
import type { ProvenanceTool } from "../platform/tool-version.js";
import type { TargetKind } from "../spec/schema.js";
import type { TargetOf } from "../spec/target-kinds.js";
import type { IpfsConnection } from "./ipfs/connection.js";
import type { S3Connection } from "./s3/client.js";

export interface PrepareOptions {
  /** The target's name in the spec (two targets may share a path, never a directory of their own). */
  name: string;
  runId: string;
  /** The spec's name: S3 keys live under runKeyPrefix(spec, runId). */
  spec: string;
  writes: boolean;
  env: NodeJS.ProcessEnv;
  /** Called as soon as something outside the run directory exists, before anything is put in it. */
  created(leftover: Leftover): void;
  /** The run's interrupt (Ctrl-C): a wait on the target ends with it. */
  signal: AbortSignal;
}

/**
 * What a run creates outside its run directory: a directory (an owned target directory, a launched
 * server's data), keys under a prefix of the run's own in a store, what its adds stored on an external
 * IPFS node (their root CIDs and sizes, and what removing them takes), or what a host transport made to
 * run the workers (a Kubernetes Job). Recorded as created, so that what a
 * killed attempt left can be found and removed (`benchspec clean`, `--resume`).
 */
export const LeftoverSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("directory"), path: z.string() }),
  z.object({ kind: z.literal("keys"), bucket: z.string(), prefix: z.string() }),
  z.object({
    kind: z.literal("cids"),
    added: z.array(z.object({ cid: z.string(), size: z.number() })),
    /** The adds pinned them (and they were not the user's pins before the case). */
    unpin: z.boolean(),
  }),
  z.object({
    kind: z.literal("transport"),
    /** In words (a Kubernetes Job and its namespace); what `released` names once the run removed it. */
    what: z.string(),
    /** What the group's transport needs to remove it (HostTransport.removeLeftover), in its own shape. */
    record: z.unknown(),
  }),
  z.object({
    kind: z.literal("engine"),
    /** The engine that made it, which alone can tell what it is and remove it (Engine.removeLeftover). */
    engine: z.string(),
    /** In words, for the one who reads what clean removed. */
    what: z.string(),
    /** What the engine needs to find and remove it, in its own shape (it parses it). */
    record: z.unknown(),
  }),
]);
export type Leftover = z.output<typeof LeftoverSchema>;

/** What provenance records about a prepared target besides its location. */
export interface TargetDetails {
  fsType?: string;
  /** Every repo a launched Kubo node started on (one more per `fresh` renewal), since removed. */
  repos?: string[];
}

/** Where one case of a run works, and how to remove what it left there. */
export interface CasePlace {
  location: string;
  leave(): Promise<void>;
}

/** What each kind's prepared target carries beyond the common members. */
interface Connections {
  fs: object;
  block: object;
  s3: { connection: S3Connection };
  ipfs: { connection: IpfsConnection };
}

export type PreparedTargetOf<K extends TargetKind> = {
  kind: K;
  /** Directory (fs), device path (block), or the server's address (s3, ipfs). */
  location: string;
  /** Where a case works: its own subdirectory on an fs target, the target itself otherwise. */
  enterCase(caseId: string): Promise<CasePlace>;
  /**
   * Empties what the case at `place` works on (a workload's `purge`), saying how; kinds that cannot purge
   * leave it out (validation keeps `purge` to the engines of kinds that can).
   */
  purge?(place: CasePlace, signal: AbortSignal): Promise<string>;
  details(): TargetDetails;
  cleanup(): Promise<void>;
} & Connections[K];

/** A target ready for a run, told apart by kind: an executor narrows it with preparedAs (index.ts). */
export type PreparedTarget = { [K in TargetKind]: PreparedTargetOf<K> }[TargetKind];

/** A one-line function body (`name() { body; }`) or one written as a block. */
export type ShellBody = string | ((w: ShellScriptWriter) => void);

/** One target of the compiled script, as its kind's shell code sees it. */
export interface ShellTarget<T> {
  target: T;
  name: string;
  /** The prefix of its functions: bs_target_<index>. */
  fn: string;
  /** BENCHSPEC_TARGET_<name>: where the user places it. */
  variable: string;
  /** "target <name>", for messages. */
  what: string;
}

/** The bs_target_<index>_* functions of one target: set up once, entered per repetition, left after each case, released on exit. */
export interface ShellTargetFunctions {
  setup(w: ShellScriptWriter): void;
  enter: ShellBody;
  /** Default: nothing to do. */
  leave?: string;
  /** Default: nothing to do. */
  release?: string;
  /** Empties the place the current case works on (a workload's `purge`; in the child, after enter). */
  purge?: string;
  /** Before each case that works on it, in the script's own process (a fresh node). Default: nothing. */
  case?: string;
  /** Before each repetition (warm-ups too) on it, in the script's own process. Default: nothing. */
  repetition?: string;
}

export interface TargetShell<T> {
  /** The .sh file with the bash functions every target of this kind calls. */
  library?: URL;
  /** The script header's note on what BENCHSPEC_TARGET_<name> holds for this kind. */
  place(target: T): string;
  /** The CLIs its purge needs, checked by the script when a case purges a target of this kind. */
  purgeTools?: readonly string[];
  functions(t: ShellTarget<T>): ShellTargetFunctions;
  /** What benchspec run does with this target that the script does not (compile says each). */
  gaps?(target: T): string[];
}

export interface TargetKindEntry<K extends TargetKind> {
  /** Makes the target ready for a run; heavy clients are imported only here, when a run needs them. */
  prepare(target: TargetOf<K>, options: PrepareOptions): Promise<PreparedTarget & { kind: K }>;
  shell: TargetShell<TargetOf<K>>;
  /** The servers benchspec launches for this target, whose versions go into the run's provenance. */
  launches(target: TargetOf<K>): readonly ProvenanceTool[];
  /** Removes the leftovers of this kind other than directories (the keys a killed attempt left in a store). */
  removeLeftover?(target: TargetOf<K>, leftover: Leftover, env: NodeJS.ProcessEnv): Promise<void>;
}
