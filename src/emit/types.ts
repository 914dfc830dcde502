/**
 * The compile stage's vocabulary: the files artifacts are made of, and what every emitter
 * is given. "Target" is the storage a case runs against; an output of compile is a format.
 */
import { z } from "zod";
import type { Case, Plan } from "../plan/types.js";

/** A relative path that stays inside the directory it is written to: no leading "/", no ".." part, no NUL. */
const INSIDE = /^(?!\/)(?!(?:.*\/)?\.\.(?:\/|$))[^\0]+$/;

/** A file of the compiled output, relative to the output directory (workers are sent them: hosts/protocol.ts). */
export const ArtifactSchema = z.object({
  path: z.string().regex(INSIDE, "a path inside the output directory"),
  content: z.string(),
});
export type Artifact = z.output<typeof ArtifactSchema>;

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
