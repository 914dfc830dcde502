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
    const missing =
      (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union") &&
      issue.input === undefined &&
      !("discriminator" in issue && issue.discriminator);
    if (missing) {
      emit("missing-key", `missing required key "${String(path.at(-1))}"${expectedOf(issue)}`, path, "key");
      continue;
    }
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
        emit(
          "invalid-type",
          custom(issue.message) ??
            (nonFinite(issue.input)
              ? `${String(issue.input)} is not a finite number (YAML reads ${String(issue.input) === "NaN" ? ".nan" : "1e400 or .inf"} as ${String(issue.input)}); expected ${issue.expected === "number" ? "a finite number" : issue.expected}`
              : `expected ${issue.expected}, got ${describe(issue.input)}`),
          path,
        );
        break;
      case "invalid_value": {
        const values = issue.values.map(String);
        if (typeof issue.input === "string" && values.includes(issue.input)) {
          emit(
            "invalid-type",
            `${describe(issue.input)} is a string; expected the ${typeof issue.values[0]} ${issue.input}`,
            path,
          );
          break;
        }
        const hint = typeof issue.input === "string" ? didYouMean(issue.input, values) : "";
        emit(
          "invalid-value",
          `${describe(issue.input)} is not allowed; expected ${oneOf(values)}${hint}`,
          path,
        );
        break;
      }
      case "too_small":
      case "too_big": {
        const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
        const inclusive = issue.inclusive !== false;
        const words =
          issue.code === "too_small"
            ? inclusive
              ? "at least"
              : "greater than"
            : inclusive
              ? "at most"
              : "less than";
        const empty = issue.code === "too_small" && issue.origin === "string" && Number(bound) === 1;
        const message = empty
          ? "must not be empty"
          : issue.origin === "array"
            ? `needs ${words} ${bound} item${Number(bound) === 1 ? "" : "s"}`
            : issue.origin === "string"
              ? `must be ${words} ${bound} characters long`
              : `must be ${words} ${bound}`;
        // Numbers out of their bounds share a code with percentages outside 0–100%.
        const code = issue.origin === "number" || issue.origin === "int" ? "out-of-range" : "invalid-value";
        emit(
          code,
          custom(issue.message) ?? (empty ? message : `${message}, got ${describe(issue.input)}`),
          path,
        );
        break;
      }
      case "invalid_union":
        if ("discriminator" in issue && issue.discriminator && "options" in issue && issue.options) {
          const options = issue.options.map(String);
          const value = (issue.input as Record<string, unknown> | undefined)?.[issue.discriminator];
          if (value === undefined) {
            emit(
              "missing-key",
              `missing required key "${issue.discriminator}"; expected ${oneOf(options)}`,
              path,
              "key",
            );
            const objectPath = path.at(-1) === issue.discriminator ? path.slice(0, -1) : path;
            const known = unionKeys(schema, input, objectPath);
            for (const key of Object.keys((issue.input as object | undefined) ?? {})) {
              if (!known.includes(key))
                emit(
                  "unknown-key",
                  `unknown key "${key}"${didYouMean(key, known)}`,
                  [...objectPath, key],
                  "key",
                );
            }
          } else {
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

/** A branch that failed only because the value has the wrong shape here (e.g. an enum given a list). */
function isTypeMismatch(branch: readonly Issue[]): boolean {
  return branch.every(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === "invalid_type" ||
        (issue.code === "invalid_value" && typeof issue.input === "object" && issue.input !== null) ||
        (issue.code === "invalid_union" && issue.errors.every(isTypeMismatch))),
  );
}

/** zod's own default messages start like this; anything else was written for the user in schema.ts. */
const custom = (message: string) => (/^(Invalid|Too (small|big))/.test(message) ? undefined : message);

function expectedOf(issue: Issue): string {
  if (issue.code === "invalid_value") return `; expected ${oneOf(issue.values.map(String))}`;
  const message = custom(issue.message);
  return message ? ` (${message})` : "";
}

/** Every key any branch of the (discriminated) union at `path` accepts. */
function unionKeys(schema: z.ZodType, input: unknown, path: SpecPath): string[] {
  const union = schemaAt(schema, input, path);
  const options = (defOf(union).options as unknown[] | undefined) ?? [union];
  return [...new Set(options.flatMap((option) => Object.keys((defOf(option).shape as object) ?? {})))];
}

/** The keys an object schema accepts at `path`, for suggestions. */
function knownKeys(schema: z.ZodType, input: unknown, path: SpecPath): string[] {
  const def = defOf(unwrap(schemaAt(schema, input, path), valueAt(input, path)));
  return def.type === "object" ? Object.keys(def.shape as object) : [];
}

const valueAt = (input: unknown, path: SpecPath) =>
  path.reduce<unknown>(
    (value, segment) => (value as Record<string | number, unknown> | undefined)?.[segment],
    input,
  );

/** The schema at `path` (walks zod's definitions; unions are resolved by the input's `kind`). */
function schemaAt(schema: z.ZodType, input: unknown, path: SpecPath): unknown {
  let current: unknown = schema;
  let value: unknown = input;
  for (const segment of path) {
    current = unwrap(current, value);
    const def = defOf(current);
    value = (value as Record<string | number, unknown> | undefined)?.[segment];
    if (def.type === "object") current = (def.shape as Record<string, unknown>)[segment];
    else if (def.type === "array") current = def.element;
    else if (def.type === "record") current = def.valueType;
    else return undefined;
  }
  // Unwrap wrappers but keep a union itself, so its options stay visible.
  for (let def = defOf(current); "innerType" in def || def.type === "pipe"; def = defOf(current)) {
    current = "innerType" in def ? def.innerType : def.in;
  }
  return current;
}

function unwrap(schema: unknown, value: unknown): unknown {
  for (;;) {
    const def = defOf(schema);
    if ("innerType" in def) schema = def.innerType;
    else if (def.type === "pipe") schema = def.in;
    else if (def.type === "union") {
      const options = def.options as unknown[];
      const kind = (value as { kind?: unknown } | undefined)?.kind;
      const chosen = options.find((option) => {
        const shape = defOf(unwrap(option, value)).shape as Record<string, unknown> | undefined;
        return shape && (kind === undefined || defOf(shape.kind).values?.includes?.(kind) !== false);
      });
      if (!chosen) return schema;
      schema = unwrap(chosen, value);
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

function nonFinite(value: unknown): boolean {
  return typeof value === "number" && !Number.isFinite(value);
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
