/**
 * `--set key=value` overrides, applied to the parsed YAML document before validation so the values are
 * checked exactly like the spec's own. Keys:
 *   vars.NAME=…, targets.NAME.KEY=…, defaults.PARAM=…, report.…  — a path in the spec
 *   WORKLOAD.PARAM=…                                              — one workload (replaces a swept list)
 *   PARAM=…                                                        — every workload that sets it, and defaults
 * Values are YAML: `--set size=4KiB`, `--set 'bs=[4KiB, 1MiB]'`.
 */
import { isMap, isSeq, parse, type Document, type YAMLMap } from "yaml";
import { suggestSimilar } from "../diagnostics/suggest.js";
import { PARAM_NAMES } from "./schema.js";

const SPEC_ROOTS = new Set(["vars", "targets", "defaults", "report", "name", "description"]);

export class OverrideError extends Error {}

export function applyOverride(doc: Document.Parsed, assignment: string): void {
  const eq = assignment.indexOf("=");
  if (eq <= 0) throw new OverrideError(`--set "${assignment}": expected key=value`);
  const key = assignment.slice(0, eq).trim();
  let value: unknown;
  try {
    value = parse(assignment.slice(eq + 1), { maxAliasCount: 0 });
  } catch (error) {
    throw new OverrideError(`--set ${key}: the value is not valid YAML (${(error as Error).message.split("\n")[0]})`);
  }
  const path = key.split(".");
  if (SPEC_ROOTS.has(path[0]!)) {
    doc.setIn(path, doc.createNode(value));
    return;
  }
  const workloads = doc.get("workloads");
  const items = isSeq(workloads) ? workloads.items.filter(isMap) : [];
  const [first, second] = path;
  if (path.length === 2) {
    const workload = items.find((item) => item.get("name") === first);
    if (!workload) {
      const names = items.map((item) => String(item.get("name")));
      const hint = suggestSimilar(first!, names);
      throw new OverrideError(`--set ${key}: no workload named "${first}"${hint ? `; did you mean "${hint}"?` : ""}`);
    }
    setParam(doc, workload, second!, value);
    return;
  }
  if (path.length === 1 && (PARAM_NAMES as string[]).includes(first!)) {
    doc.setIn(["defaults", first], doc.createNode(value));
    for (const workload of items) {
      const matrix = workload.get("matrix");
      if (workload.has(first) || (isMap(matrix) && matrix.has(first))) {
        setParam(doc, workload, first!, value);
      }
    }
    return;
  }
  const hint = suggestSimilar(first!, [...SPEC_ROOTS, ...PARAM_NAMES]);
  throw new OverrideError(
    `--set ${key}: expected PARAM, WORKLOAD.PARAM or a path under ${[...SPEC_ROOTS].join("/")}${hint ? `; did you mean "${hint}"?` : ""}`,
  );
}

/** Sets a workload parameter; a value replaces the matrix dimension of the same name. */
function setParam(doc: Document.Parsed, workload: YAMLMap, param: string, value: unknown) {
  workload.set(param, doc.createNode(value));
  const matrix = workload.get("matrix");
  if (isMap(matrix)) matrix.delete(param);
}
