/** What a reader needs to reproduce a run: the spec, the host, the tools, the time. */
import { execa } from "execa";
import { cpus, hostname, release, totalmem, type } from "node:os";
import { dirname } from "node:path";

export interface Provenance {
  spec: { name: string; file: string; hash: string; sets: string[]; git?: { commit: string; dirty: boolean } };
  host: { hostname: string; os: string; kernel: string; cpu: string; cores: number; memoryBytes: number };
  versions: Record<string, string>;
  targets: Record<string, { location?: string; fsType?: string }>;
  start: string;
  end?: string;
}

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

const VERSION_COMMANDS: Record<string, [string, string[]]> = {
  fio: ["fio", ["--version"]],
  dd: ["dd", ["--version"]],
};

/** First line of `tool --version` for each tool the plan's engines use. */
export async function toolVersions(tools: Iterable<string>): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const tool of tools) {
    const [file, args] = VERSION_COMMANDS[tool] ?? [tool, ["--version"]];
    const result = await execa(file, args, { reject: false });
    versions[tool] = result.exitCode === 0 ? (result.stdout.split("\n")[0] ?? "").trim() : "not found";
  }
  return versions;
}
