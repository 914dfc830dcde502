/**
 * The spec's expectations planned: each matched to its cases, its bounds evaluated with the spec's vars
 * (and a target's own vars where they differ), and its metric checked against what the engines measure.
 */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import type { EngineTable } from "../spec/engines.js";
import { sameValue } from "../spec/params.js";
import { METRICS, type Metric, type ParamName, type Spec } from "../spec/schema.js";
import type { DiagnosticSink } from "../spec/sink.js";
import { evaluate, SILENT } from "../spec/vars.js";
import type { Case, PlannedExpect } from "./types.js";

/** An expectation can only check what the engines of its cases measure (dd has no latency). */
function checkMetric(
  metric: Metric,
  cases: readonly Case[],
  table: EngineTable,
  path: SpecPath,
  sink: DiagnosticSink,
): void {
  const engines = [...new Set(cases.map((c) => c.engine))].sort();
  const lacking = engines.filter((engine) => !table[engine]!.metrics.includes(metric));
  if (lacking.length === 0) return;
  const reported = METRICS.filter((m) => engines.every((engine) => table[engine]!.metrics.includes(m)));
  sink.error(
    "metric-not-reported",
    `engine ${lacking.join(" and ")} does not report ${metric}; ${engines.length > 1 ? `the engines of these cases (${engines.join(", ")}) all report` : "it reports"} ${reported.join(", ")}`,
    path,
  );
}

export function planExpectations(
  spec: Spec,
  vars: Record<string, number>,
  targetVars: Record<string, Record<string, number>>,
  cases: Case[],
  engines: EngineTable,
  sink: DiagnosticSink,
): PlannedExpect[] {
  const declared = Object.keys(spec.vars ?? {});
  return (spec.expect ?? []).map((expect, index) => {
    const path = ["expect", index];
    const where = expect.where ?? {};
    const matching = cases.filter(
      (c) =>
        c.workload === expect.workload &&
        Object.entries(where).every(([key, value]) => sameValue(c.params[key as ParamName], value)),
    );
    if (matching.length === 0 && !sink.hasErrors) {
      sink.warning("matches-nothing", "this expectation matches no case", [...path, "where"]);
    }
    checkMetric(
      expect.metric,
      matching.length > 0 ? matching : cases.filter((c) => c.workload === expect.workload),
      engines,
      [...path, "metric"],
      sink,
    );
    const bound = (key: "atLeast" | "atMost") => {
      const value = expect[key];
      if (value === undefined) return {};
      const result = evaluate(value, vars, [...path, key], sink, declared);
      return {
        ...(result !== undefined && { [key]: result }),
        ...(typeof value === "string" && { [`${key}Text`]: value }),
      };
    };
    // A case on a target with vars of its own gets its own bounds where they differ from the spec's.
    const byCase: NonNullable<PlannedExpect["byCase"]> = {};
    for (const c of matching) {
      const own = targetVars[c.target];
      if (!own) continue;
      const bounds: { atLeast?: number; atMost?: number } = {};
      for (const key of ["atLeast", "atMost"] as const) {
        const value = expect[key];
        if (value === undefined) continue;
        // Its errors are the formula's, reported with the spec's vars above.
        const result = evaluate(value, own, [...path, key], SILENT, declared);
        if (result !== undefined) bounds[key] = result;
      }
      const plain = bound("atLeast").atLeast === bounds.atLeast && bound("atMost").atMost === bounds.atMost;
      if (!plain) byCase[c.id] = { ...bounds, target: c.target };
    }
    return {
      index,
      workload: expect.workload,
      where,
      metric: expect.metric,
      ...bound("atLeast"),
      ...bound("atMost"),
      ...(expect.description !== undefined && { description: expect.description }),
      cases: matching.map((c) => c.id),
      ...(Object.keys(byCase).length > 0 && { byCase }),
    };
  });
}
