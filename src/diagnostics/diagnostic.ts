import type { DiagnosticCode } from "./codes.js";

export type SpecPath = readonly (string | number)[];

/** A problem found in a spec: data only; rendering is done by render.ts. */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: "error" | "warning";
  message: string;
  /** Path inside the spec, e.g. ["workloads", 1, "iodepth"]. */
  path: SpecPath;
  file: string;
  /** 1-based; 0 when the problem has no place in the file (e.g. the file is missing). */
  line: number;
  column: number;
}

export function formatPath(path: SpecPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export const hasErrors = (diagnostics: readonly Diagnostic[]): boolean =>
  diagnostics.some((d) => d.severity === "error");
