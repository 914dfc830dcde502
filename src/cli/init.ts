import { Command } from "commander";
import { access, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { BenchspecError } from "../platform/errors.js";
import { PACKAGE_ROOT } from "../platform/package-root.js";
import { describeFsError } from "../platform/fs-errors.js";
import { EXIT, nonEmptyPath, type Io } from "./context.js";

export function makeInitCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("init")
    .description("write a commented starter spec")
    .argument("[file]", "where to write it", "benchspec.yaml")
    .option("-f, --force", "overwrite an existing file")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec init                     # writes benchspec.yaml
  $ benchspec init specs/nvme.yaml`,
    )
    .action(async (file: string, options: { force?: boolean }) => {
      nonEmptyPath("init", file);
      if (!options.force && (await exists(file))) {
        throw new BenchspecError("usage", `${file} exists; use --force to overwrite it`);
      }
      const text = await starterSpec(file);
      try {
        await writeFile(file, text, { flag: options.force ? "w" : "wx" });
      } catch (error) {
        throw new BenchspecError(
          "unwritable-output",
          `cannot write ${file}: ${await explainWriteError(file, error)}`,
          { cause: error },
        );
      }
      io.stdout.write(`wrote ${file}; next: benchspec validate ${file}\n`);
      setExit(EXIT.ok);
    });
}

export async function starterSpec(file: string): Promise<string> {
  const template = await readFile(join(PACKAGE_ROOT, "templates", "init.yaml"), "utf8");
  const schemaPath = relative(dirname(resolve(file)), join(PACKAGE_ROOT, "schema", "benchspec.schema.json"));
  return template.replaceAll("{{schema}}", schemaPath.split(sep).join("/")).replaceAll("{{file}}", file);
}

/** Why a starter spec could not be written, in words: a missing directory is named, never created. */
async function explainWriteError(file: string, error: unknown): Promise<string> {
  const code = (error as NodeJS.ErrnoException).code;
  const parent = dirname(file);
  if (code === "ENOENT" && !(await exists(parent)))
    return `directory ${parent} does not exist (create it first)`;
  if (code === "EEXIST") return "it exists; use --force to overwrite it";
  return describeFsError(error);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
