/**
 * Writes compiled artifacts into a directory without ever deleting what benchspec did not write there:
 * an existing directory must be empty or hold a previous compile (its plan.json says which files are ours).
 */
import { accessSync, chmodSync, constants, mkdirSync, statSync, writeFileSync } from "node:fs";
import { readdir, readFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { PLAN_FORMAT, PLAN_INDEX_PATH } from "./compile.js";
import type { Artifact } from "../emit/types.js";
import { BenchspecError, hasCode } from "../platform/errors.js";
import { RUN_FILES } from "../results/run-dir.js";
import { describeFsError } from "../platform/fs-errors.js";

export async function writeArtifacts(dir: string, artifacts: readonly Artifact[]): Promise<void> {
  makeDirectory(dir);
  await removePreviousCompile(dir);
  // Synchronous on purpose: 10,000 small files written one await at a time take seconds, not milliseconds.
  const made = new Set<string>([resolve(dir)]);
  for (const artifact of artifacts) {
    const file = join(dir, artifact.path);
    try {
      const parent = resolve(dirname(file));
      // Below a directory just checked (not /proc, say), so mkdir's recursive mode cannot loop.
      if (!made.has(parent)) mkdirSync(parent, { recursive: true });
      made.add(parent);
      writeFileSync(file, artifact.content);
      if (artifact.path.endsWith(".sh")) chmodSync(file, 0o755);
    } catch (error) {
      throw new BenchspecError("unwritable-output", `cannot write ${file}: ${describeFsError(error)}`, {
        cause: error,
      });
    }
  }
}

/**
 * Creates `dir` and its missing parents one level at a time, after checking that the nearest existing
 * ancestor is a writable directory. Not mkdir's recursive mode: on /proc that retries forever instead of
 * failing (and a Ctrl-C cannot stop it).
 */
export function makeDirectory(dir: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    try {
      if (statSync(existing).isDirectory()) break;
      throw new BenchspecError(
        "unwritable-output",
        `${existing === target ? dir : existing} is a file, not a directory`,
      );
    } catch (error) {
      if (hasCode(error, "unwritable-output")) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const parent = dirname(existing);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === existing) {
        throw new BenchspecError("unwritable-output", `cannot create ${dir}: ${describeFsError(error)}`, {
          cause: error,
        });
      }
      missing.unshift(existing);
      existing = parent;
    }
  }
  if (missing.length === 0) return;
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch {
    throw new BenchspecError("unwritable-output", `cannot create ${dir}: ${existing} is not writable`);
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && isDirectory(path)) continue;
      throw new BenchspecError(
        "unwritable-output",
        code === "ENOENT"
          ? `cannot create ${dir}: ${dirname(path)} does not allow new directories`
          : `cannot create ${dir}: ${describeFsError(error)}`,
        { cause: error },
      );
    }
  }
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

async function removePreviousCompile(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return; // does not exist yet
  }
  // A run takes its directory's lock before it writes its artifacts there.
  if (entries.every((entry) => entry === RUN_FILES.lock.name)) return;
  const previous = await previousArtifacts(dir);
  if (!previous) {
    throw new BenchspecError(
      "unwritable-output",
      `${dir} is not empty and holds no earlier benchspec compile; choose an empty or new directory`,
    );
  }
  for (const path of previous) await rm(join(dir, path), { force: true });
  // Only emptied: a file the user keeps beside the artifacts is not ours to delete.
  for (const sub of ["fio", "sdk"]) await rmdir(join(dir, sub)).catch(() => {});
}

async function previousArtifacts(dir: string): Promise<string[] | undefined> {
  try {
    const index = JSON.parse(await readFile(join(dir, PLAN_INDEX_PATH), "utf8")) as {
      format?: string;
      cases?: { artifacts?: Record<string, string[]> }[];
    };
    if (index.format !== PLAN_FORMAT) return undefined;
    const files = new Set([PLAN_INDEX_PATH]);
    for (const c of index.cases ?? [])
      for (const paths of Object.values(c.artifacts ?? {})) paths.forEach((p) => files.add(p));
    return [...files].filter((path) => !path.includes(".."));
  } catch {
    return undefined;
  }
}
