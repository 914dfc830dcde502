/** The ipfs target kind: a Kubo node, a launched throwaway one or an external RPC API. */
import { locatedTool } from "../../platform/tool-version.js";
import type { TargetKindEntry } from "../types.js";
import { ipfsShell } from "./shell.js";

export const ipfsTarget: TargetKindEntry<"ipfs"> = {
  // Loaded when needed: launching Kubo is run-time code that validate and compile never need.
  prepare: async (target, options) => (await import("./prepare.js")).prepareIpfsTarget(target, options),
  shell: ipfsShell,
  launches: (target) => (target.launch ? [locatedTool(target.launch)] : []),
  removeLeftover: async (target, leftover, env) =>
    (await import("./leftovers.js")).removeIpfsLeftover(target, leftover, env),
};
