/**
 * Preparing an fs target for a run: its files live in a benchspec-owned subdirectory created for the run
 * and removed afterwards (unless keep: true); nothing that was there before is touched. Each case works in
 * its own subdirectory of it.
 */
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { describeFsError } from "../../platform/fs-errors.js";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fsTypeOf } from "../../platform/mounts.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import type { PreparedTargetOf, PrepareOptions } from "../types.js";

/**
 * The benchspec-owned directories on fs targets not marked keep: true, while they exist. A second Ctrl-C
 * exits at once, without the awaited cleanup; removeOwnedTargetsSync is what it still does.
 */
const ownedDirectories = new Set<string>();

/** Synchronously removes every owned target directory still registered (and nothing else). */
export function removeOwnedTargetsSync(): void {
  for (const dir of ownedDirectories) {
    try {
      // Retries: a tool killed a moment ago may still be closing files in there.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {
      // exiting anyway; one directory that resists does not keep the others
    }
  }
  ownedDirectories.clear();
}

export async function prepareFs(
  target: TargetOf<"fs">,
  options: PrepareOptions,
): Promise<PreparedTargetOf<"fs">> {
  const temporary = target.path === undefined;
  const base = temporary
    ? await mkdtemp(join(tmpdir(), "benchspec-target-"))
    : resolve(resolveEnvRefs(target.path!, options.env));
  // Named after the target too: two targets on one path each have a directory of their own.
  const owned = join(base, `benchspec-${options.name}-${options.runId}`);
  try {
    await mkdir(owned, { recursive: false });
  } catch (error) {
    if (temporary) await rm(base, { recursive: true, force: true });
    throw new Error(
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? `its path ${base} does not exist (benchspec creates only its own directory in it)`
        : `cannot create ${owned}: ${describeFsError(error)}`,
      { cause: error },
    );
  }
  const ours = temporary ? base : owned;
  if (!target.keep) {
    ownedDirectories.add(ours);
    options.created({ kind: "directory", path: ours });
  }
  const fsType = fsTypeOf(owned);
  return {
    kind: "fs",
    location: owned,
    enterCase: async (caseId) => {
      const location = join(owned, caseId);
      await mkdir(location, { recursive: true });
      return {
        location,
        leave: async () => (target.keep ? undefined : rm(location, { recursive: true, force: true })),
      };
    },
    // The case's directory is new unless kept or resumed; either way its workload starts from no files.
    purge: async (place) => {
      await rm(place.location, { recursive: true, force: true });
      await mkdir(place.location, { recursive: true });
      return `emptied ${place.location}`;
    },
    details: () => ({ ...(fsType && { fsType }) }),
    cleanup: async () => {
      if (target.keep) return;
      await rm(ours, { recursive: true, force: true });
      ownedDirectories.delete(ours);
    },
  };
}
