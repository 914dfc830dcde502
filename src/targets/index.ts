/**
 * Preparing targets for a run. An fs target's files live in a benchspec-owned subdirectory created for
 * the run and removed afterwards (unless keep: true); nothing that was there before is touched. A block
 * target is resolved and checked (block-safety.ts) before anything opens it. s3 and ipfs targets are a
 * launched throwaway server or an external endpoint (their engines' target.ts).
 */
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { IpfsConnection } from "./ipfs/prepare.js";
import type { S3Connection } from "./s3/client.js";
import type { Target, TargetKind } from "../spec/schema.js";
import { resolveEnvRefs } from "../spec/strings.js";
import { checkBlockDevice } from "./block/safety.js";
import { fsTypeOf } from "../platform/mounts.js";
import { BenchspecError } from "../platform/errors.js";

export interface PreparedTarget {
  /** Directory (fs), device path (block), or the server's address (s3, ipfs). */
  location: string;
  fsType?: string;
  s3?: S3Connection;
  ipfs?: IpfsConnection;
  cleanup(): Promise<void>;
}

interface PrepareOptions {
  runId: string;
  writes: boolean;
  env: NodeJS.ProcessEnv;
}

type Preparer<K extends TargetKind> = (
  target: Extract<Target, { kind: K }>,
  options: PrepareOptions,
) => Promise<PreparedTarget>;

/** One preparer per target kind; a new kind without one is a type error. */
const PREPARERS: { [K in TargetKind]: Preparer<K> } = {
  fs: prepareFs,
  block: async (target, options) => {
    const device = resolveEnvRefs(target.device, options.env);
    return { location: checkBlockDevice(device, { write: options.writes }), cleanup: async () => {} };
  },
  // Loaded when needed: the AWS SDK alone adds a third of a second to every start of benchspec.
  s3: async (target, options) => (await import("./s3/prepare.js")).prepareS3Target(target, options.env),
  ipfs: async (target, options) => (await import("./ipfs/prepare.js")).prepareIpfsTarget(target, options.env),
};

export async function prepareTarget(
  name: string,
  target: Target,
  options: PrepareOptions,
): Promise<PreparedTarget> {
  try {
    return await (PREPARERS[target.kind] as Preparer<TargetKind>)(target as never, options);
  } catch (error) {
    throw new BenchspecError("target-setup", `target "${name}": ${(error as Error).message}`, {
      cause: error,
    });
  }
}

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

async function prepareFs(
  target: Extract<Target, { kind: "fs" }>,
  options: PrepareOptions,
): Promise<PreparedTarget> {
  const temporary = target.path === undefined;
  const base = temporary
    ? await mkdtemp(join(tmpdir(), "benchspec-target-"))
    : resolve(resolveEnvRefs(target.path!, options.env));
  const owned = join(base, `benchspec-${options.runId}`);
  try {
    await mkdir(owned, { recursive: false });
  } catch (error) {
    if (temporary) await rm(base, { recursive: true, force: true });
    throw new Error(`cannot create ${owned}: ${(error as Error).message}`);
  }
  const ours = temporary ? base : owned;
  if (!target.keep) ownedDirectories.add(ours);
  return {
    location: owned,
    fsType: fsTypeOf(owned),
    cleanup: async () => {
      if (target.keep) return;
      await rm(ours, { recursive: true, force: true });
      ownedDirectories.delete(ours);
    },
  };
}
