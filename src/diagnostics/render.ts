import { printable } from "../platform/printable.js";
import { formatPath, type Diagnostic } from "./diagnostic.js";

export interface RenderOptions {
  color: boolean;
}

/** The one place diagnostics become text: `file:line:col path: message [code]`. */
export function renderDiagnostic(d: Diagnostic, { color }: RenderOptions): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.column}` : `${d.file}:`;
  const path = d.path.length > 0 ? ` ${formatPath(d.path)}:` : "";
  const severity = color ? paint(d.severity) : d.severity;
  return `${printable(where)}${printable(path)} ${severity}: ${printable(d.message)} [${d.code}]`;
}

export function renderDiagnostics(diagnostics: readonly Diagnostic[], options: RenderOptions): string {
  const sorted = [...diagnostics].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column,
  );
  const lines = sorted.map((d) => renderDiagnostic(d, options));
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  if (diagnostics.length > 0) lines.push(`${plural(errors, "error")}, ${plural(warnings, "warning")}`);
  return lines.join("\n");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function paint(severity: Diagnostic["severity"]): string {
  return severity === "error" ? `\x1b[31m${severity}\x1b[0m` : `\x1b[33m${severity}\x1b[0m`;
}
