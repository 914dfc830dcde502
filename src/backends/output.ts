/**
 * Writes compiled artifacts into a directory without ever deleting what benchspec did not write there:
 * an existing directory must be empty or hold a previous compile (its plan.json says which files are ours).
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { readdir, readFile, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PLAN_FORMAT, PLAN_INDEX_PATH } from "./compile.js";
import type { Artifact } from "./types.js";

export class OutputDirError extends Error {}

export async function writeArtifacts(dir: string, artifacts: readonly Artifact[]): Promise<void> {
  await removePreviousCompile(dir);
  // Synchronous on purpose: 10,000 small files written one await at a time take seconds, not milliseconds.
  const made = new Set<string>();
  for (const artifact of artifacts) {
    const file = join(dir, artifact.path);
    const parent = dirname(file);
    if (!made.has(parent)) mkdirSync(parent, { recursive: true });
    made.add(parent);
    writeFileSync(file, artifact.content);
    if (artifact.path.endsWith(".sh")) chmodSync(file, 0o755);
  }
}

async function removePreviousCompile(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return; // does not exist yet
  }
  if (entries.length === 0) return;
  const previous = await previousArtifacts(dir);
  if (!previous) {
    throw new OutputDirError(
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
