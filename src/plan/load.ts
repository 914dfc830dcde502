/**
 * The front of the pipeline: a spec file (or text) → diagnostics and, when it is valid, its Plan.
 * The language checks it (spec/validate.ts: load, override, shape, rules); this expands it into cases
 * (stage 5, with the rules that need resolved cases).
 */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { describeFileType } from "../platform/fs-errors.js";
import type { Spec } from "../spec/schema.js";
import { LIMITS, type SpecSource } from "../spec/source.js";
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

export async function loadSpec(file: string, options: ValidateOptions = {}): Promise<Validated> {
  const read = await readSpecFile(file);
  if ("diagnostic" in read) return { diagnostics: [read.diagnostic] };
  return validateText(file, read.text, options);
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
    return { text: buffer.toString("utf8", 0, length) };
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { diagnostic: fileDiagnostic(file, "file-not-found", `cannot read spec: ${reason}`) };
  } finally {
    await handle?.close();
  }
}

export function validateText(file: string, text: string, options: ValidateOptions = {}): Validated {
  const { diagnostics, source, valid } = validateSpecText(file, text, options);
  if (!valid) return { diagnostics, ...(source && { source }) };
  const { spec, vars, specHash, sink } = valid;
  const plan = expand(spec, vars, specHash, sink);
  return { diagnostics: sink.diagnostics, source, spec, ...(!sink.hasErrors && { plan }) };
}
