/**
 * Preparing targets for a run. An fs target's files live in a benchspec-owned subdirectory created for
 * the run and removed afterwards (unless keep: true); nothing that was there before is touched. A block
 * target is resolved and checked (block-safety.ts) before anything opens it.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Target } from "../spec/schema.js";
import { resolveEnvRefs } from "../spec/strings.js";
import { checkBlockDevice } from "./block-safety.js";
import { fsTypeOf } from "./mounts.js";

export interface PreparedTarget {
  /** Directory (fs) or device path (block) the executors use. */
  location: string;
  fsType?: string;
  cleanup(): Promise<void>;
}

export class TargetError extends Error {}

export async function prepareTarget(
  name: string,
  target: Target,
  options: { runId: string; writes: boolean; env: NodeJS.ProcessEnv },
): Promise<PreparedTarget> {
  if (target.kind === "fs") {
    const temporary = target.path === undefined;
    const base = temporary ? await mkdtemp(join(tmpdir(), "benchspec-target-")) : resolve(resolveEnvRefs(target.path!, options.env));
    const owned = join(base, `benchspec-${options.runId}`);
    try {
      await mkdir(owned, { recursive: false });
    } catch (error) {
      throw new TargetError(`target "${name}": cannot create ${owned}: ${(error as Error).message}`);
    }
    return {
      location: owned,
      fsType: fsTypeOf(owned),
      cleanup: async () => {
        if (target.keep) return;
        await rm(temporary ? base : owned, { recursive: true, force: true });
      },
    };
  }
  if (target.kind === "block") {
    const device = resolveEnvRefs(target.device, options.env);
    try {
      return { location: checkBlockDevice(device, { write: options.writes }), cleanup: async () => {} };
    } catch (error) {
      throw new TargetError(`target "${name}": ${(error as Error).message}`);
    }
  }
  throw new TargetError(`target "${name}": ${target.kind} targets are prepared by their engine`);
}
