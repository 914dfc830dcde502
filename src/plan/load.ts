/**
 * The front of the pipeline: a spec file (or text) → diagnostics and, when it is valid, its Plan.
 * The language checks it (spec/validate.ts: load, override, shape, rules); this expands it into cases
 * (stage 5, with the rules that need resolved cases).
 */
import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Spec } from "../spec/schema.js";
import type { SpecSource } from "../spec/source.js";
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
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { diagnostics: [fileDiagnostic(file, "file-not-found", `cannot read spec: ${reason}`)] };
  }
  return validateText(file, text, options);
}

export function validateText(file: string, text: string, options: ValidateOptions = {}): Validated {
  const { diagnostics, source, valid } = validateSpecText(file, text, options);
  if (!valid) return { diagnostics, ...(source && { source }) };
  const { spec, vars, specHash, sink } = valid;
  const plan = expand(spec, vars, specHash, sink);
  return { diagnostics: sink.diagnostics, source, spec, ...(!sink.hasErrors && { plan }) };
}
