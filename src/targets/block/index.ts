/** The block target kind: a raw block device, checked unused before anything opens it (safety.ts). */
import { resolveEnvRefs } from "../../spec/strings.js";
import { wholeTarget } from "../case-place.js";
import type { TargetKindEntry } from "../types.js";
import { purgeBlockDevice } from "./purge.js";
import { checkBlockDevice } from "./safety.js";
import { blockShell } from "./shell.js";

export const blockTarget: TargetKindEntry<"block"> = {
  prepare: async (target, options) => {
    const location = checkBlockDevice(resolveEnvRefs(target.device, options.env), {
      write: options.writes,
      destructive: target.destructive === true,
      overwrite: target.overwrite,
    });
    return {
      kind: "block",
      location,
      enterCase: wholeTarget(location),
      purge: (_place, signal) => purgeBlockDevice(location, signal),
      details: () => ({}),
      cleanup: async () => {},
    };
  },
  shell: blockShell,
  launches: () => [],
};
