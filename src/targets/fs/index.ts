/** The fs target kind: a directory on a file system. */
import type { TargetKindEntry } from "../types.js";
import { prepareFs } from "./prepare.js";
import { fsShell } from "./shell.js";

export const fsTarget: TargetKindEntry<"fs"> = {
  prepare: prepareFs,
  shell: fsShell,
  launches: () => [],
};
