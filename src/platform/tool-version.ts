/**
 * A tool whose version goes into a run's provenance, and how to read that version. The engine and target
 * registries name their tools with these; what reads a version is imported only when it is read, so
 * `validate` and `compile`, which load the registries, do not load process-spawning code.
 */
import type { ToolName } from "./tools.js";

export interface ProvenanceTool {
  name: string;
  /** The tool's own version line; rejects when the tool cannot be found or run. */
  version(): Promise<string>;
}

/** A tool benchspec locates itself (the tools cache, then PATH). */
export const locatedTool = (tool: ToolName): ProvenanceTool => ({
  name: tool,
  version: async () => (await import("./tools.js")).toolVersion(tool),
});

/** A command on PATH that answers `--version`. */
export const pathTool = (command: string): ProvenanceTool => ({
  name: command,
  version: async () => {
    const { execa } = await import("execa");
    const result = await execa(command, ["--version"], { reject: false });
    if (result.exitCode !== 0) throw new Error(`${command} --version failed`);
    return (result.stdout.split("\n")[0] ?? "").trim();
  },
});
