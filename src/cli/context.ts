/** What every command shares: output streams, colour, the package version, exit codes. */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { renderDiagnostics } from "../diagnostics/render.js";
import { writeFileAtomic } from "../platform/atomic-write.js";
import { BenchspecError } from "../platform/errors.js";
import { describeFsError } from "../platform/fs-errors.js";
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

export { EXIT } from "../platform/errors.js";

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export { VERSION } from "../platform/package-root.js";

export function useColor(io: Io, stream: Io["stdout"]): boolean {
  return !("NO_COLOR" in io.env) && stream.isTTY === true && io.env.TERM !== "dumb";
}

export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.length === 0) return;
  io.stderr.write(`${renderDiagnostics(diagnostics, { color: useColor(io, io.stderr) })}\n`);
}

/** Collects a repeatable option (`--set a=1 --set b=2`). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--only a,b --only c`: the names, in order. */
export const collectNames = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== ""),
];

/** The option that limits a command to some of the spec's workloads. */
export const ONLY_OPTION = ["--only <workload,…>", "only these workloads of the spec (repeatable)"] as const;

/** A path from the command line: an empty one would silently mean the current directory. */
export function nonEmptyPath(option: string, value: string): string {
  if (value.trim() === "")
    throw new BenchspecError(
      "usage",
      `${option}: an empty path is not allowed (it would mean the current directory)`,
    );
  return value;
}

/** Writes a command's output file whole (temporary file + rename); a failure names the option and why. */
export async function writeOutputFile(option: string, file: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(file, text);
  } catch (error) {
    throw new BenchspecError(
      "unwritable-output",
      `${option}: cannot write ${file}: ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** A path as the file system names it: symlinks resolved, as far as the path exists. */
function canonical(path: string): string {
  const full = resolve(path);
  if (existsSync(full)) return realpathSync(full);
  const parent = dirname(full);
  return parent === full ? full : join(canonical(parent), basename(full));
}

/**
 * An output must not be one of the command's inputs, nor lie inside one where it would replace what is
 * read (`mayLieInside`: the paths inside an input directory it may take; none when absent), nor hold an
 * input (it would be copied into itself).
 */
export function checkOutputApart(
  option: string,
  output: string,
  inputs: readonly string[],
  mayLieInside: (relativePath: string) => boolean = () => false,
): void {
  const out = canonical(output);
  for (const input of inputs) {
    const given = canonical(input);
    const refuse = (why: string) => {
      throw new BenchspecError("usage", `${option} ${output}: ${why} ${input}; write the output elsewhere`);
    };
    if (out === given) refuse("it is the input");
    const inside = relative(given, out);
    if (!inside.startsWith("..") && !isAbsolute(inside) && !mayLieInside(inside))
      refuse("it lies inside the input");
    const holds = relative(out, given);
    if (!holds.startsWith("..") && !isAbsolute(holds)) refuse("it holds the input");
  }
}
