/** Evaluation of `vars` and of the expressions that use them (expect bounds). */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import { evalExpr, ExprError, exprVars, parseExpr } from "./expr.js";
import type { Spec } from "./schema.js";
import type { DiagnosticSink } from "./sink.js";

/**
 * Evaluates vars in the order written; a var may use the ones before it. With a target, the target's
 * `vars` replace the spec's expressions of the same names, in the spec's order: the vars that use them
 * (iopsLimit over capacityGiB) follow.
 */
export function resolveVars(
  spec: Spec,
  sink: Pick<DiagnosticSink, "error">,
  target?: string,
): Record<string, number> {
  const values: Record<string, number> = Object.create(null);
  const { all, entries, position } = varOrder(spec);
  const own = target !== undefined ? (spec.targets[target]?.vars ?? {}) : {};
  for (const [index, [name, value]] of entries.entries()) {
    const mine = Object.hasOwn(own, name);
    const path = mine ? ["targets", target!, "vars", name] : ["vars", name];
    // The spec's own vars were reported by the spec's pass; here, only what follows from the target's.
    const to = mine || target === undefined ? sink : SILENT;
    const result = evaluate(mine ? own[name]! : value, values, path, to, all, { position, from: index });
    if (result !== undefined) values[name] = result;
  }
  return values;
}

/** The spec's vars in order, and each one's place: once per spec, however many targets set vars. */
const orders = new WeakMap<
  Spec,
  { all: string[]; entries: [string, number | string][]; position: Map<string, number> }
>();
function varOrder(spec: Spec) {
  let order = orders.get(spec);
  if (!order) {
    const entries = Object.entries(spec.vars ?? {});
    const all = entries.map(([name]) => name);
    order = { all, entries, position: new Map(all.map((name, i) => [name, i])) };
    orders.set(spec, order);
  }
  return order;
}

/**
 * Per target that sets `vars`: the vars its cases see. A target var the spec does not declare is an error.
 * Only the target's own vars and the vars that use them (directly or through others) are evaluated again;
 * the rest are the spec's values, shared (each target's record inherits them): 4,000 targets × 4,000 vars
 * are not 16 million evaluations and values.
 */
export function resolveTargetVars(spec: Spec, sink: DiagnosticSink): Record<string, Record<string, number>> {
  const { all: declared, entries, position } = varOrder(spec);
  const isDeclared = new Set(declared);
  const out: Record<string, Record<string, number>> = {};
  let shared: { base: Record<string, number>; users: Map<string, string[]> } | undefined;
  for (const [target, { vars }] of Object.entries(spec.targets)) {
    if (!vars) continue;
    for (const name of Object.keys(vars)) {
      if (isDeclared.has(name)) continue;
      const hint =
        didYouMean(name, declared) ||
        (declared.length ? ` (the spec's vars: ${declared.join(", ")})` : " (the spec declares no vars)");
      sink.error(
        "unknown-var",
        `"${name}" is not one of the spec's vars; a target's vars give its own values of them${hint}`,
        ["targets", target, "vars", name],
        { at: "key" },
      );
    }
    shared ??= { base: resolveVars(spec, SILENT), users: varUsers(entries) };
    const { base, users } = shared;
    // The target's vars, and every var that uses one of them, in the spec's order.
    const changed = new Set<string>();
    const queue = Object.keys(vars).filter((name) => isDeclared.has(name));
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      if (changed.has(name)) continue;
      changed.add(name);
      queue.push(...(users.get(name) ?? []));
    }
    const values: Record<string, number> = Object.create(base);
    let complete = declared.every((name) => changed.has(name) || name in base);
    for (const name of [...changed].sort((a, b) => position.get(a)! - position.get(b)!)) {
      const index = position.get(name)!;
      const mine = Object.hasOwn(vars, name);
      // The spec's own vars were reported by the spec's pass; here, only what follows from the target's.
      const result = evaluate(
        mine ? vars[name]! : entries[index]![1],
        values,
        mine ? ["targets", target, "vars", name] : ["vars", name],
        mine ? sink : SILENT,
        declared,
        { position, from: index },
      );
      if (result === undefined) {
        complete = false;
        // Not the spec's value: what uses it must not evaluate with it.
        values[name] = undefined as unknown as number;
      } else values[name] = result;
    }
    // A target whose vars did not all evaluate has its error; nothing evaluated with them would add to it.
    if (complete) out[target] = values;
  }
  return out;
}

/** For each var, the vars whose expressions use it. */
function varUsers(entries: readonly [string, number | string][]): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const [name, value] of entries)
    for (const used of varsOf(value)) users.set(used, [...(users.get(used) ?? []), name]);
  return users;
}

/** For evaluating again what was reported once already. */
export const SILENT: Pick<DiagnosticSink, "error"> = { error: () => undefined };

/** The vars a formula uses (none for a number or a formula that does not parse). */
export function varsOf(value: number | string): string[] {
  if (typeof value === "number") return [];
  try {
    return exprVars(parseExpr(value)).map((v) => v.name);
  } catch (error) {
    if (error instanceof ExprError) return [];
    throw error;
  }
}

/** A number or expression evaluated against vars; undefined (with a diagnostic) when it cannot be. */
export function evaluate(
  value: number | string,
  vars: Readonly<Record<string, number>>,
  path: SpecPath,
  sink: Pick<DiagnosticSink, "error">,
  /** Every var of the spec, to tell "failed" and "defined later" from "not defined". */
  declared: readonly string[] = [],
  /** While evaluating vars: each var's place, and this one's (it and the ones below it are not evaluated yet). */
  pending?: { position: ReadonlyMap<string, number>; from: number },
): number | undefined {
  if (typeof value === "number") return value;
  try {
    const expr = parseExpr(value);
    for (const { name, offset } of exprVars(expr)) {
      // Checked first: a target's record inherits every var of the spec, those below this one too.
      const at = pending?.position.get(name);
      if (at !== undefined && at >= pending!.from) {
        sink.error(
          "unknown-var",
          at === pending!.from
            ? `"${name}" cannot use itself; a var may only use the vars above it`
            : `"${name}" is defined further down; a var may only use the vars above it`,
          path,
          { offset },
        );
        return undefined;
      }
      if (typeof vars[name] !== "number") {
        if (declared.includes(name)) {
          // Its own error is reported at its definition; say so instead of "unknown".
          sink.error("unknown-var", `variable "${name}" could not be evaluated (see its error)`, path, {
            offset,
          });
          return undefined;
        }
        const known: string[] = [];
        for (const key in vars) known.push(key);
        const hint =
          didYouMean(name, known) ||
          (known.length ? ` (defined: ${known.join(", ")})` : " (no vars are defined)");
        sink.error("unknown-var", `unknown variable "${name}"${hint}`, path, { offset });
        return undefined;
      }
    }
    const result = evalExpr(expr, vars);
    if (!Number.isFinite(result)) {
      sink.error("invalid-value", `"${value}" does not evaluate to a finite number`, path);
      return undefined;
    }
    return result;
  } catch (error) {
    if (!(error instanceof ExprError)) throw error;
    sink.error("expr-syntax", `${error.message} in "${value}"`, path, { offset: error.offset });
    return undefined;
  }
}
