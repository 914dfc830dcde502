import fc from "fast-check";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DIAGNOSTIC_CODES } from "../../src/diagnostics/codes.js";
import { renderDiagnostics } from "../../src/diagnostics/render.js";
import { validateText } from "../../src/engines/language.js";
import { specFiles } from "../support/spec.js";

type Json = unknown;
type Path = (string | number)[];

function pathsOf(value: Json, prefix: Path = []): Path[] {
  if (Array.isArray(value))
    return value.flatMap((item, i) => [[...prefix, i], ...pathsOf(item, [...prefix, i])]);
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => [
      [...prefix, key],
      ...pathsOf(item, [...prefix, key]),
    ]);
  }
  return [];
}

/** Applies one mutation at a path of a deep copy. */
function mutate(spec: Json, path: Path, mutation: Mutation): Json {
  const copy = structuredClone(spec) as Record<string | number, unknown>;
  const parent = path
    .slice(0, -1)
    .reduce<Record<string | number, unknown>>((node, key) => node[key] as never, copy);
  const key = path[path.length - 1]!;
  switch (mutation.kind) {
    case "delete":
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      break;
    case "replace":
      parent[key] = mutation.value;
      break;
    case "rename":
      if (!Array.isArray(parent) && typeof key === "string") {
        const value = parent[key];
        delete parent[key];
        parent[mutation.name] = value;
      }
      break;
    case "wrap":
      parent[key] = [parent[key], parent[key]];
      break;
  }
  return copy;
}

type Mutation =
  { kind: "delete" } | { kind: "replace"; value: Json } | { kind: "rename"; name: string } | { kind: "wrap" };

const values = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "4KiB",
    "4K",
    "10Gbps",
    "30s",
    "-1",
    "1e400",
    "${HOME}",
    "__proto__",
    "a\nb",
    "</script>",
    0,
    -1,
    1e308,
    true,
  ),
);
const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: "delete" as const }),
  values.map((value) => ({ kind: "replace" as const, value })),
  fc.string({ minLength: 1, maxLength: 12 }).map((name) => ({ kind: "rename" as const, name })),
  fc.constant({ kind: "wrap" as const }),
);

function checkOutcome(file: string, text: string) {
  const result = validateText(file, text);
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  expect(result.plan === undefined).toBe(errors.length > 0);
  for (const d of result.diagnostics) {
    expect(Object.keys(DIAGNOSTIC_CODES)).toContain(d.code);
    expect(d.file).toBe(file);
    expect(d.message.length).toBeGreaterThan(0);
    expect(d.line).toBeGreaterThanOrEqual(0);
  }
  expect(() => renderDiagnostics(result.diagnostics, { color: false })).not.toThrow();
}

describe("random mutations of every shipped spec give diagnostics, never a crash", () => {
  for (const file of specFiles()) {
    const text = readFileSync(file, "utf8");
    const spec = parse(text) as Json;
    const paths = pathsOf(spec);

    it(`${basename(file)}: structural mutations`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.nat(paths.length - 1), mutations), { minLength: 1, maxLength: 3 }),
          (steps) => {
            let mutated = spec;
            for (const [index, mutation] of steps) {
              const candidates = pathsOf(mutated);
              if (candidates.length === 0) break;
              mutated = mutate(mutated, candidates[index % candidates.length]!, mutation);
            }
            checkOutcome(file, stringify(mutated));
          },
        ),
        { numRuns: 150 },
      );
    });

    it(`${basename(file)}: text mutations`, () => {
      fc.assert(
        fc.property(fc.nat(text.length), fc.nat(20), fc.string({ maxLength: 8 }), (at, cut, insert) => {
          checkOutcome(file, text.slice(0, at) + insert + text.slice(at + cut));
        }),
        { numRuns: 100 },
      );
    });
  }
});
