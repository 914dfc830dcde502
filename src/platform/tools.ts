/**
 * Locates the external tool binaries benchspec drives (fio, Kubo's `ipfs`, `minio`).
 *
 * Kubo and MinIO are built by `scripts/setup-tools.sh` into a per-version cache outside the checkout; the
 * versions and the cache-dir rule below must stay in sync with that script. PATH is the fallback so a user's
 * own install works too (its version is then whatever `toolVersion()` reports, recorded in provenance).
 */
import { accessSync, constants } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { BenchspecError } from "./errors.js";

/** Kept in sync with KUBO_VERSION in scripts/setup-tools.sh. */
export const KUBO_VERSION = "v0.42.0";
/** Kept in sync with MINIO_VERSION in scripts/setup-tools.sh (a Go pseudo-version: MinIO stopped tagging). */
export const MINIO_VERSION = "v0.0.0-20260212201848-7aac2a2c5b7c";

export type ToolName = "fio" | "kubo" | "minio";

/** A required tool binary is neither in the tools cache nor on PATH; a class of its own for what it carries. */
export class ToolNotFoundError extends BenchspecError {
  override readonly name = "ToolNotFoundError";
  constructor(
    readonly tool: ToolName,
    /** Every path that was tried, in order, so the user can see where we looked. */
    readonly searched: readonly string[],
  ) {
    super(
      "tool-not-found",
      `${tool} not found (looked in: ${searched.join(", ") || "nothing"}). ` +
        "Run `npm run setup` to install fio and build Kubo and MinIO into the tools cache.",
    );
  }
}

/** Same rule as the setup script: BENCHSPEC_TOOLS_DIR, else $XDG_CACHE_HOME/benchspec/tools, else ~/.cache/…. */
export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCHSPEC_TOOLS_DIR) return env.BENCHSPEC_TOOLS_DIR;
  const cache = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), ".cache");
  return path.join(cache, "benchspec", "tools");
}

export function kuboBinary(env: NodeJS.ProcessEnv = process.env): string {
  return locate("kubo", "ipfs", path.join(toolsDir(env), `kubo-${KUBO_VERSION}`, "ipfs"), env);
}

export function minioBinary(env: NodeJS.ProcessEnv = process.env): string {
  return locate("minio", "minio", path.join(toolsDir(env), `minio-${MINIO_VERSION}`, "minio"), env);
}

/** fio comes from the distribution, so only PATH is searched. */
export function fioBinary(env: NodeJS.ProcessEnv = process.env): string {
  return locate("fio", "fio", undefined, env);
}

const binaryFor: Record<ToolName, (env?: NodeJS.ProcessEnv) => string> = {
  fio: fioBinary,
  kubo: kuboBinary,
  minio: minioBinary,
};

/**
 * The tool's own version line (e.g. "fio-3.33", "ipfs version 0.42.0"), for run provenance.
 * MinIO built from the module proxy has no release ldflags and reports "DEVELOPMENT…", so the cached binary
 * is identified by the module version it was built from instead.
 */
export async function toolVersion(tool: ToolName, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const binary = binaryFor[tool](env);
  if (tool === "minio" && binary === path.join(toolsDir(env), `minio-${MINIO_VERSION}`, "minio")) {
    return `minio ${MINIO_VERSION}`;
  }
  const args = tool === "kubo" ? ["version"] : ["--version"];
  const { stdout } = await execa(binary, args, { env, timeout: 15_000 });
  return stdout.split("\n")[0]?.trim() ?? "";
}

function locate(tool: ToolName, command: string, cached: string | undefined, env: NodeJS.ProcessEnv): string {
  const candidates = [
    ...(cached ? [cached] : []),
    ...(env.PATH ?? "")
      .split(path.delimiter)
      .filter((dir) => dir !== "")
      .map((dir) => path.join(dir, command)),
  ];
  const found = candidates.find(isExecutable);
  if (!found) throw new ToolNotFoundError(tool, candidates);
  return found;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
