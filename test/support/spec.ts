import { readdirSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import type { Plan } from "../../src/plan/types.js";
import { validateText } from "../../src/engines/language.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const SPECS_DIR = join(ROOT, "specs");
export const specFiles = () =>
  readdirSync(SPECS_DIR)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => join(SPECS_DIR, name));

/** Validates a spec given as a JS object (written out as YAML) and returns its plan, or throws the diagnostics. */
export function planOf(spec: object, sets: string[] = []): Plan {
  const result = validateText("test.yaml", stringify(spec), { sets });
  if (!result.plan) throw new Error(result.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return result.plan;
}

export function diagnosticsOf(spec: object | string, sets: string[] = []): Diagnostic[] {
  return validateText("test.yaml", typeof spec === "string" ? spec : stringify(spec), { sets }).diagnostics;
}

export const fsSpec = (workloads: object[], extra: object = {}) => ({
  benchspec: 1,
  name: "t",
  targets: { scratch: { kind: "fs" } },
  workloads,
  ...extra,
});
