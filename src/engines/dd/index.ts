/**
 * The dd engine (shell target only): N parallel `dd` processes behind a start barrier, as the shared-storage
 * and MinIO drive tests ran them by hand. Each process writes (or reads back) its own file of bs × count
 * bytes — on a block device its own region, at offset i × count blocks — and reports its bytes and seconds
 * from dd's own summary; the row's seconds are the wall time from the barrier's release to the last exit.
 *
 * Writes read /dev/zero for `data: zero`, otherwise a payload file generated before the first repetition, so
 * dd's speed is not /dev/urandom's. Reads need the files first: they are written in an unmeasured setup step
 * (with fdatasync), and their page cache is dropped (dd iflag=nocache) before every repetition.
 */
import type { Engine } from "../types.js";
import { pathTool } from "../../platform/tool-version.js";
import { ddShellCase, ddShellLibrary } from "./shell.js";

export const engine: Engine = {
  engine: "dd",
  shellTools: ["dd"],
  shellLibrary: ddShellLibrary,
  shellCase: ddShellCase,
  tools: [pathTool("dd")],
  libraries: [],
  executor: async () => (await import("./run.js")).ddExecutor,
};
