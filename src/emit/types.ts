/**
 * The compile stage's vocabulary: the files artifacts are made of, and what every emitter
 * is given. "Target" is the storage a case runs against; an output of compile is a format.
 */
import type { Case, Plan } from "../plan/types.js";

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
