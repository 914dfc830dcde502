/**
 * Where the bench finds things: the tools `scripts/setup-tools.sh` builds, a scratch directory on tmpfs
 * (servers' data and reference tools' files live in memory, so the storage is not what is compared), and how
 * to start `benchspec` — the built CLI, or the sources through tsx when dist/ is missing or older than src/.
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { processAlive } from "../src/platform/process.js";
import { kuboBinary, toolsDir } from "../src/platform/tools.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const RESULTS_DIR = join(ROOT, "bench", "results");

/** Kept in sync with S5CMD_VERSION in scripts/setup-tools.sh. */
export const S5CMD_VERSION = "v2.3.0";

/** Kept in sync with WARP_VERSION in scripts/setup-tools.sh. */
export const WARP_VERSION = "v1.3.1";

export const s5cmdBinary = () => toolBinary("s5cmd", S5CMD_VERSION, "s5cmd");
export const warpBinary = () => toolBinary("warp", WARP_VERSION, "warp");

function toolBinary(tool: string, version: string, binary: string): string {
  const file = join(toolsDir(), `${tool}-${version}`, binary);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new Error(
      `${tool} ${version} not found at ${file}: run \`npm run setup\` (scripts/setup-tools.sh)`,
    );
  }
  return file;
}

export const ipfsBinary = () => kuboBinary();

/** A fresh directory on tmpfs (/dev/shm) when there is one, else in the temp dir. */
export function scratchParent(): string {
  return existsSync("/dev/shm") && statSync("/dev/shm").isDirectory() ? "/dev/shm" : tmpdir();
}

const ROOT_PREFIX = "benchspec-bench-pid";

/**
 * This bench's own directory under scratchParent(), named by its pid: the servers' data and every scratch
 * directory live in it. A bench that was killed (SIGKILL leaves no chance to clean) left a directory whose
 * pid is gone — on tmpfs that is RAM held until reboot — so each bench removes those first.
 */
export function benchRoot(): string {
  if (root) return root;
  const parent = scratchParent();
  for (const name of readdirSync(parent)) {
    const pid = Number(name.slice(ROOT_PREFIX.length));
    if (name.startsWith(ROOT_PREFIX) && Number.isInteger(pid) && pid > 0 && !processAlive(pid))
      rmSync(join(parent, name), { recursive: true, force: true });
  }
  root = join(parent, `${ROOT_PREFIX}${process.pid}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return root;
}
let root: string | undefined;

export const removeBenchRoot = () => {
  if (root) rmSync(root, { recursive: true, force: true });
};

export const makeScratch = (name: string) => mkdtemp(join(benchRoot(), `${name}-`));

export interface BenchspecCommand {
  file: string;
  args: string[];
  /** "dist" (bin/benchspec.js) or "source" (bench/cli.ts through tsx). */
  kind: "dist" | "source";
}

let chosen: BenchspecCommand | undefined;

/**
 * The built CLI when it is at least as new as every source file; otherwise the sources via tsx. Chosen once
 * per bench, so every section measures the same thing even if src/ changes meanwhile.
 */
export function benchspecCommand(): BenchspecCommand {
  return (chosen ??= choose());
}

function choose(): BenchspecCommand {
  const built = join(ROOT, "dist", "cli", "main.js");
  const forced = process.env.BENCH_BENCHSPEC;
  const fresh = existsSync(built) && newestMtime(join(ROOT, "src")) <= statSync(built).mtimeMs;
  if (forced === "dist" || (forced !== "source" && fresh)) {
    return { file: process.execPath, args: [join(ROOT, "bin", "benchspec.js")], kind: "dist" };
  }
  return { file: process.execPath, args: ["--import", "tsx", join(ROOT, "bench", "cli.ts")], kind: "source" };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
