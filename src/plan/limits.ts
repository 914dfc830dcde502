/**
 * `report.limits` evaluated: a formula over vars becomes its number, once with the spec's vars, or once per
 * target when the targets' vars give it different values (a vendor formula over each disk's capacity), or
 * with the vars of the one target the limit names.
 */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import type { Spec } from "../spec/schema.js";
import type { DiagnosticSink } from "../spec/sink.js";
import { parseUnit } from "../spec/units.js";
import { evaluate } from "../spec/vars.js";
import type { Case, PlannedLimit } from "./types.js";

const LIMIT_KEYS = ["throughput", "iops", "latency"] as const;

export function planLimits(
  spec: Spec,
  vars: Record<string, number>,
  targetVars: Record<string, Record<string, number>>,
  cases: readonly Case[],
  sink: DiagnosticSink,
): PlannedLimit[] | undefined {
  const limits = spec.report?.limits;
  if (!limits) return undefined;
  const declared = Object.keys(spec.vars ?? {});
  // The targets the plan's cases use, in the spec's order.
  const used = Object.keys(spec.targets).filter((t) => cases.some((c) => c.target === t));
  return limits.flatMap((limit, index): PlannedLimit[] => {
    const key = LIMIT_KEYS.find((k) => limit[k] !== undefined);
    if (!key) return [];
    const formula = limit[key]!;
    const path: SpecPath = ["report", "limits", index, key];
    const valueWith = (values: Record<string, number>) => {
      const misspelt = misspeltQuantity(key, formula);
      if (misspelt) {
        sink.error("invalid-unit", misspelt, path);
        return undefined;
      }
      const result = evaluate(formula, values, path, sink, declared);
      if (result !== undefined && !(result > 0)) {
        sink.error("out-of-range", `the ${key} limit must be larger than 0 (it is ${result})`, path);
        return undefined;
      }
      return result;
    };
    // In the schema's order, so that a limit without a formula is as written.
    const of = (value: number | undefined, target?: string): PlannedLimit[] =>
      value === undefined
        ? []
        : [
            {
              label: limit.label,
              [key]: value,
              ...(limit.interface !== undefined && { interface: limit.interface }),
              ...(target !== undefined && { target }),
              ...(typeof formula === "string" && { text: formula }),
            },
          ];
    if (limit.target !== undefined) {
      if (!Object.hasOwn(spec.targets, limit.target)) return []; // reported by the rules
      return of(valueWith(targetVars[limit.target] ?? vars), limit.target);
    }
    const plain = valueWith(vars);
    const perTarget = used.map((t) => ({ t, value: targetVars[t] ? valueWith(targetVars[t]) : plain }));
    if (perTarget.every(({ value }) => value === plain)) return of(plain);
    return perTarget.flatMap(({ t, value }) => of(value, t));
  });
}

/** Units of the limits that have one. */
const LIMIT_UNITS = { throughput: "rate", latency: "duration" } as const;

/**
 * Why a formula that is a bare quantity ("10 Gbps") is not one of the limit's unit, if it is not: said as a
 * unit error (what would be valid), not as a formula that does not parse.
 */
function misspeltQuantity(key: (typeof LIMIT_KEYS)[number], formula: string | number): string | undefined {
  if (typeof formula !== "string" || key === "iops" || !/^\s*[\d.]+\s*[A-Za-z/%]+\s*$/.test(formula))
    return undefined;
  const parsed = parseUnit(LIMIT_UNITS[key], formula);
  return parsed.ok ? undefined : parsed.message;
}
