import type { DiagnosticCode } from "../diagnostics/codes.js";
import type { Diagnostic, SpecPath } from "../diagnostics/diagnostic.js";
import { locate, type SpecSource } from "./source.js";

export interface ReportOptions {
  /** Point at the key rather than its value (unknown or misplaced keys). */
  at?: "key" | "value";
  /** Offset inside a string value (expression errors). */
  offset?: number;
}

/** Collects diagnostics against one source; duplicates (the same problem seen from many cases) are kept once. */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly source: SpecSource) {}

  error(code: DiagnosticCode, message: string, path: SpecPath, options: ReportOptions = {}): void {
    this.add("error", code, message, path, options);
  }

  warning(code: DiagnosticCode, message: string, path: SpecPath, options: ReportOptions = {}): void {
    this.add("warning", code, message, path, options);
  }

  get hasErrors(): boolean {
    return this.diagnostics.some((d) => d.severity === "error");
  }

  private add(
    severity: Diagnostic["severity"],
    code: DiagnosticCode,
    message: string,
    path: SpecPath,
    options: ReportOptions,
  ) {
    const key = JSON.stringify([severity, code, message, path]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const { line, column, fromOverride } = locate(this.source, path, options.at, options.offset);
    const text = fromOverride ? `${message} (value given with --set)` : message;
    this.diagnostics.push({ code, severity, message: text, path, file: this.source.file, line, column });
  }
}
