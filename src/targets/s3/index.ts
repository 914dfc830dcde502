/** The s3 target kind: an S3-compatible store, a launched throwaway MinIO or an external endpoint. */
import { locatedTool } from "../../platform/tool-version.js";
import type { TargetKindEntry } from "../types.js";
import { s3Shell } from "./shell.js";

export const s3Target: TargetKindEntry<"s3"> = {
  // Loaded when needed: the AWS SDK alone adds a third of a second to every start of benchspec.
  prepare: async (target, options) => (await import("./prepare.js")).prepareS3Target(target, options),
  shell: s3Shell,
  launches: (target) => (target.launch ? [locatedTool(target.launch)] : []),
  removeLeftover: async (target, leftover, env) =>
    (await import("./leftovers.js")).removeS3Leftover(target, leftover, env),
};
