/** Collects provenance.json (results/run-dir.ts): the host, the tools' and libraries' versions, git. */
import { execa } from "execa";
import { cpus, hostname, release, totalmem, type } from "node:os";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { toolVersion } from "../platform/tools.js";
import type { Provenance } from "../results/run-dir.js";

export async function gitInfo(file: string): Promise<{ commit: string; dirty: boolean } | undefined> {
  const cwd = dirname(file);
  const commit = await execa("git", ["rev-parse", "HEAD"], { cwd, reject: false });
  if (commit.exitCode !== 0) return undefined;
  const status = await execa("git", ["status", "--porcelain", "--", file], { cwd, reject: false });
  return { commit: commit.stdout.trim(), dirty: status.stdout.trim() !== "" };
}

export function hostInfo(): Provenance["host"] {
  return {
    hostname: hostname(),
    os: type(),
    kernel: release(),
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryBytes: totalmem(),
  };
}

/** First line of each tool's own version report ("not found" when it is missing). */
export async function toolVersions(tools: Iterable<string>): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const tool of tools) {
    if (tool === "fio" || tool === "kubo" || tool === "minio") {
      versions[tool] = await toolVersion(tool).catch(() => "not found");
      continue;
    }
    const result = await execa(tool, ["--version"], { reject: false });
    versions[tool] = result.exitCode === 0 ? (result.stdout.split("\n")[0] ?? "").trim() : "not found";
  }
  return versions;
}

/** Versions of the client libraries the engines are built on (they shape the numbers as much as a CLI). */
export function libraryVersions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const versions: Record<string, string> = {};
  for (const name of ["@aws-sdk/client-s3", "kubo-rpc-client"]) {
    try {
      versions[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      // not installed: not used
    }
  }
  return versions;
}
