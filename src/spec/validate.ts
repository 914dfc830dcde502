/**
 * The language's half of the pipeline front, written down once:
 *   1. load     YAML → document with positions, guarded (size, depth, aliases, duplicate keys)
 *   2. override --set key=value applied to the document
 *   3. shape    zod schema: types, units, unknown keys ("did you mean")
 *   4. rules    cross-field rules over the whole spec
 * Every problem of every stage that can run is reported at once; a stage runs only on valid input.
 * Expansion into cases (stage 5) is the plan's: plan/load.ts.
 */
import { createHash } from "node:crypto";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { hasCode } from "../platform/errors.js";
import { issuesToDiagnostics } from "./issues.js";
import { applyOverride, hostsOption, onlyWorkloads } from "./overrides.js";
import { canonicalJson } from "./params.js";
import { runRules } from "./rules.js";
import { SpecSchema, type Spec } from "./schema.js";
import { DiagnosticSink } from "./sink.js";
import { parseSpecText, type SpecSource } from "./source.js";
import { resolveVars } from "./vars.js";

export interface ValidateOptions {
  sets?: readonly string[];
  /** `--hosts [GROUP=]HOST,…` (applied before the --set assignments, which may refine the group). */
  hosts?: readonly string[];
  /** `--only NAME…`: these workloads only (applied after the --set assignments). */
  only?: readonly string[];
}

/** A spec that passed its shape check, with what expansion needs; `sink` holds the rules' diagnostics. */
export interface ValidSpec {
  spec: Spec;
  vars: Record<string, number>;
  specHash: string;
  sink: DiagnosticSink;
}

export interface ValidatedSpec {
  diagnostics: Diagnostic[];
  source?: SpecSource;
  valid?: ValidSpec;
}

export function validateSpecText(file: string, text: string, options: ValidateOptions = {}): ValidatedSpec {
  const loaded = parseSpecText(file, text);
  const { source } = loaded;
  if (loaded.diagnostics.length > 0) return { diagnostics: loaded.diagnostics, source };

  let value = loaded.value;
  if (options.sets?.length || options.hosts?.length || options.only?.length) {
    try {
      for (const option of options.hosts ?? [])
        for (const assignment of hostsOption(source.doc, option)) applyOverride(source.doc, assignment);
      for (const assignment of options.sets ?? []) applyOverride(source.doc, assignment);
      if (options.only?.length) onlyWorkloads(source.doc, options.only);
    } catch (error) {
      if (!hasCode(error, "invalid-override")) throw error;
      return { diagnostics: [fileDiagnostic(file, "invalid-set", error.message)], source };
    }
    value = source.doc.toJS();
  }

  const parsed = SpecSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    return { diagnostics: issuesToDiagnostics(parsed.error.issues, SpecSchema, value, source), source };
  }
  const spec = parsed.data;
  const sink = new DiagnosticSink(source);
  const vars = resolveVars(spec, sink);
  runRules({ spec, sink, vars });
  const specHash = createHash("sha256").update(canonicalJson(value)).digest("hex");
  return { diagnostics: sink.diagnostics, source, valid: { spec, vars, specHash, sink } };
}

export function fileDiagnostic(file: string, code: Diagnostic["code"], message: string): Diagnostic {
  return { code, severity: "error", message, path: [], file, line: 0, column: 0 };
}
