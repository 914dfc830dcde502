/**
 * Writes compiled artifacts into a directory without ever deleting what benchspec did not write there:
 * an existing directory must be empty or hold a previous compile (its plan.json says which files are ours).
 */
import { mkdir, readdir, readFile, rm, writeFile, chmod } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PLAN_FORMAT, PLAN_INDEX_PATH } from "./compile.js";
import type { Artifact } from "./types.js";

export class OutputDirError extends Error {}

export async function writeArtifacts(dir: string, artifacts: readonly Artifact[]): Promise<void> {
  await removePreviousCompile(dir);
  for (const artifact of artifacts) {
    const file = join(dir, artifact.path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, artifact.content);
    if (artifact.path.endsWith(".sh")) await chmod(file, 0o755);
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
  for (const sub of ["fio", "sdk"])
    await rm(join(dir, sub), { recursive: true, force: true }).catch(() => {});
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
