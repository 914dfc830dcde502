/** Collects provenance.json (results/run-dir.ts): the host, the tools' and libraries' versions, git. */
import { execa } from "execa";
import { cpus, hostname, release, totalmem, type } from "node:os";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { loadAllEngines } from "../engines/index.js";
import type { ProvenanceTool } from "../platform/tool-version.js";
import type { Provenance } from "../results/run-dir.js";

export async function gitInfo(
  file: string,
): Promise<{ commit: string; dirty: boolean; untracked?: true } | undefined> {
  const cwd = dirname(file);
  const commit = await execa("git", ["rev-parse", "HEAD"], { cwd, reject: false });
  if (commit.exitCode !== 0) return undefined;
  const status = await execa("git", ["status", "--porcelain", "--", file], { cwd, reject: false });
  const line = status.stdout.trim();
  // "??": the spec was never committed, so the commit says nothing of it (it was not modified "since").
  if (line.startsWith("??")) return { commit: commit.stdout.trim(), dirty: false, untracked: true };
  return { commit: commit.stdout.trim(), dirty: line !== "" };
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
export async function toolVersions(tools: Iterable<ProvenanceTool>): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const tool of tools) {
    // Two engines (or targets) may use the same tool: it is asked once.
    if (Object.hasOwn(versions, tool.name)) continue;
    versions[tool.name] = await tool.version().catch(() => "not found");
  }
  return versions;
}

/** Versions of the client libraries the engines are built on (they shape the numbers as much as a CLI). */
export async function libraryVersions(): Promise<Record<string, string>> {
  const require = createRequire(import.meta.url);
  const versions: Record<string, string> = {};
  for (const name of Object.values(await loadAllEngines()).flatMap((engine) => engine.libraries)) {
    try {
      versions[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      // not installed: not used
    }
  }
  return versions;
}
