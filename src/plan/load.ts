/**
 * The front of the pipeline: a spec file (or text) → diagnostics and, when it is valid, its Plan.
 * The language checks it (spec/validate.ts: load, override, shape, rules); this expands it into cases
 * (stage 5, with the rules that need resolved cases) with the engines it is given: engines/language.ts
 * gives the registry's.
 */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { describeFileType } from "../platform/fs-errors.js";
import type { Spec } from "../spec/schema.js";
import { LIMITS, type SpecSource } from "../spec/source.js";
import type { EngineTable } from "../spec/engines.js";
import { fileDiagnostic, validateSpecText, type ValidateOptions } from "../spec/validate.js";
import { expand } from "./expand.js";
import type { Plan } from "./types.js";

export type { ValidateOptions };

export interface Validated {
  diagnostics: Diagnostic[];
  source?: SpecSource;
  spec?: Spec;
  plan?: Plan;
}

export async function loadSpecWith(
  engines: EngineTable,
  file: string,
  options: ValidateOptions = {},
): Promise<Validated> {
  const read = await readSpecFile(file);
  if ("diagnostic" in read) return { diagnostics: [read.diagnostic] };
  return validateTextWith(engines, file, read.text, options);
}

/**
 * The spec's text, read no further than one byte past the size limit (parseSpecText then reports the file as
 * too large): /dev/zero or a growing file cannot make benchspec read on, and a FIFO neither blocks the open
 * (O_NONBLOCK) nor is read.
 */
async function readSpecFile(file: string): Promise<{ text: string } | { diagnostic: Diagnostic }> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = await handle.stat();
    if (!stats.isFile()) {
      const what = describeFileType(stats);
      return {
        diagnostic: fileDiagnostic(file, "not-a-file", `cannot read spec: ${file} is ${what}, not a file`),
      };
    }
    const buffer = Buffer.alloc(LIMITS.bytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    const bytes = buffer.subarray(0, length);
    const notUtf8 = encodingProblem(bytes);
    if (notUtf8) return { diagnostic: fileDiagnostic(file, "not-utf8", `cannot read spec: ${notUtf8}`) };
    return { text: bytes.toString("utf8") };
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { diagnostic: fileDiagnostic(file, "file-not-found", `cannot read spec: ${reason}`) };
  } finally {
    await handle?.close();
  }
}

/** Why the bytes are not UTF-8 text, naming the encoding an editor saved them in when it can be told. */
function encodingProblem(bytes: Buffer): string | undefined {
  const save = "; save it as UTF-8";
  if (bytes[0] === 0x00 && bytes[1] === 0x00 && bytes[2] === 0xfe && bytes[3] === 0xff)
    return `the file is UTF-32 (big-endian)${save}`;
  if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0x00 && bytes[3] === 0x00)
    return `the file is UTF-32 (little-endian)${save}`;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return `the file is UTF-16 (little-endian)${save}`;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return `the file is UTF-16 (big-endian)${save}`;
  // Without a byte order mark: ASCII text in UTF-16 has a NUL in every other byte.
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    return bytes.length > 1 && bytes.length % 2 === 0 && (bytes[0] === 0 || bytes[1] === 0)
      ? `the file looks like UTF-16 (every other byte is 0)${save}`
      : `byte ${nul} is NUL: not a text file`;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return `the file is not valid UTF-8 (Latin-1 or another encoding?)${save}`;
  }
  return undefined;
}

export function validateTextWith(
  engines: EngineTable,
  file: string,
  text: string,
  options: ValidateOptions = {},
): Validated {
  const { diagnostics, source, valid } = validateSpecText(file, text, options);
  if (!valid) return { diagnostics, ...(source && { source }) };
  const { spec, vars, specHash, sink } = valid;
  const plan = expand(spec, vars, specHash, engines, sink);
  return { diagnostics: sink.diagnostics, source, spec, ...(!sink.hasErrors && { plan }) };
}
