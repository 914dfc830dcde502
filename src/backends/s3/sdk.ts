import type { Case } from "../../plan/types.js";
import type { Artifact, CompileContext } from "../types.js";

// PLACEHOLDER — replaced by the sdk call-sequence work.
export function s3SdkArtifacts(_c: Case, _ctx: CompileContext): Artifact[] {
  return [];
}
