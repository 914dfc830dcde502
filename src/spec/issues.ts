/**
 * Turns zod issues into benchspec diagnostics: one per problem, with a stable code, the spec path, a
 * position, and a "did you mean" where a name was mistyped.
 */
import type { z } from "zod";
import type { DiagnosticCode } from "../diagnostics/codes.js";
import type { Diagnostic, SpecPath } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import { locate, type SpecSource } from "./source.js";

type Issue = z.core.$ZodIssue;

export function issuesToDiagnostics(
  issues: readonly Issue[],
  schema: z.ZodType,
  input: unknown,
  source: SpecSource,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const emit = (code: DiagnosticCode, message: string, path: SpecPath, at: "key" | "value" = "value") => {
    const { line, column, fromOverride } = locate(source, path, at);
    const text = fromOverride ? `${message} (value given with --set)` : message;
    diagnostics.push({ code, severity: "error", message: text, path, file: source.file, line, column });
  };
  for (const issue of flatten(issues, [])) {
    const path = issue.path as SpecPath;
    switch (issue.code) {
      case "unrecognized_keys": {
        const known = knownKeys(schema, input, path);
        for (const key of issue.keys) {
          const hint = didYouMean(key, known);
          const valid = hint || known.length === 0 ? "" : `; valid keys here: ${known.join(", ")}`;
          emit("unknown-key", `unknown key "${key}"${hint}${valid}`, [...path, key], "key");
        }
        break;
      }
      case "invalid_type":
        if (issue.input === undefined)
          emit("missing-key", `missing required key "${String(path.at(-1))}"`, path, "key");
        else emit("invalid-type", `expected ${issue.expected}, got ${describe(issue.input)}`, path);
        break;
      case "invalid_value": {
        const values = issue.values.map(String);
        const hint = typeof issue.input === "string" ? didYouMean(issue.input, values) : "";
        emit(
          "invalid-value",
          `${describe(issue.input)} is not allowed; expected ${oneOf(values)}${hint}`,
          path,
        );
        break;
      }
      case "invalid_union":
        if ("discriminator" in issue && issue.discriminator && "options" in issue && issue.options) {
          const options = issue.options.map(String);
          const value = (issue.input as Record<string, unknown> | undefined)?.[issue.discriminator];
          if (value === undefined)
            emit(
              "missing-key",
              `missing required key "${issue.discriminator}"; expected ${oneOf(options)}`,
              path,
              "key",
            );
          else {
            const hint = typeof value === "string" ? didYouMean(value, options) : "";
            emit(
              "invalid-value",
              `${describe(value)} is not allowed; expected ${oneOf(options)}${hint}`,
              path,
            );
          }
        } else emit("invalid-type", issue.message, path);
        break;
      case "invalid_key":
        emit("invalid-name", issue.issues[0]?.message ?? issue.message, path, "key");
        break;
      case "custom": {
        const code = (issue.params as { code?: DiagnosticCode } | undefined)?.code ?? "invalid-value";
        emit(
          code,
          issue.message,
          path,
          code === "invalid-name" && isRecordKey(input, path) ? "key" : "value",
        );
        break;
      }
      default:
        emit("invalid-value", issue.message, path);
    }
  }
  return diagnostics;
}

/**
 * Replaces each union failure by the failures of the branch the user evidently meant: the first branch
 * whose problem is not merely "wrong type here" (so `bs: [4KiB, 3K]` reports the bad list item).
 */
function flatten(issues: readonly Issue[], prefix: SpecPath): Issue[] {
  return issues.flatMap((issue): Issue[] => {
    const path = [...prefix, ...(issue.path as SpecPath)];
    if (issue.code !== "invalid_union" || issue.errors.length === 0) return [{ ...issue, path } as Issue];
    const meant = issue.errors.find((branch) => !isTypeMismatch(branch));
    if (meant) return flatten(meant, path);
    if (issue.message === "Invalid input")
      return flatten(issue.errors[0]!, path).map((i) => ({ ...i, path }) as Issue);
    return [{ ...issue, path, errors: [] } as Issue];
  });
}

function isTypeMismatch(branch: readonly Issue[]): boolean {
  return branch.every(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === "invalid_type" ||
        (issue.code === "invalid_union" && issue.errors.every(isTypeMismatch))),
  );
}

/** The keys an object schema accepts at `path`, for suggestions (walks zod's public definitions). */
function knownKeys(schema: z.ZodType, input: unknown, path: SpecPath): string[] {
  let current: unknown = schema;
  let value: unknown = input;
  for (const segment of [...path, undefined]) {
    current = unwrap(current, value);
    if (segment === undefined) break;
    const def = defOf(current);
    value = (value as Record<string | number, unknown> | undefined)?.[segment];
    if (def.type === "object") current = (def.shape as Record<string, unknown>)[segment];
    else if (def.type === "array") current = def.element;
    else if (def.type === "record") current = def.valueType;
    else return [];
  }
  const def = defOf(current);
  return def.type === "object" ? Object.keys(def.shape as object) : [];
}

function unwrap(schema: unknown, value: unknown): unknown {
  for (;;) {
    const def = defOf(schema);
    if ("innerType" in def) schema = def.innerType;
    else if (def.type === "pipe") schema = def.in;
    else if (def.type === "union") {
      const options = def.options as unknown[];
      const kind = (value as { kind?: unknown } | undefined)?.kind;
      schema =
        options.find((option) => {
          const shape = defOf(unwrap(option, value)).shape as Record<string, unknown> | undefined;
          return shape && (kind === undefined || defOf(shape.kind).values?.includes?.(kind) !== false);
        }) ?? options[0];
      if (defOf(schema).type === "union") return schema;
    } else return schema;
  }
}

type LooseDef = Record<string, unknown> & { type?: string; values?: unknown[] };
const defOf = (schema: unknown): LooseDef =>
  ((schema as { _zod?: { def: LooseDef } })?._zod?.def ?? {}) as LooseDef;

function isRecordKey(input: unknown, path: SpecPath): boolean {
  return (
    path.length >= 2 &&
    (path[0] === "targets" || path[0] === "vars") &&
    path.length === 2 &&
    input !== undefined
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return `${typeof value} ${String(value)}`;
}

function oneOf(values: string[]): string {
  return values.length === 1 ? values[0]! : `one of ${values.join(", ")}`;
}
