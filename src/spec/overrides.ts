/**
 * `--set key=value` overrides, applied to the parsed YAML document before validation so the values are
 * checked exactly like the spec's own. Keys:
 *   vars.NAME=…, targets.NAME.KEY=…, defaults.PARAM=…, report.…  — a path in the spec
 *   WORKLOAD.PARAM=…, WORKLOAD.matrix.include=…                   — one workload (a value replaces a swept list)
 *   PARAM=…                                                        — every workload that sets it; a single
 *                                                                    value also goes into defaults
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
    throw new OverrideError(
      `--set ${key}: the value is not valid YAML (${(error as Error).message.split("\n")[0]})`,
    );
  }
  const path = key.split(".");
  if (SPEC_ROOTS.has(path[0]!)) {
    doc.setIn(path, doc.createNode(value));
    return;
  }
  const workloads = doc.get("workloads");
  const items = isSeq(workloads) ? workloads.items.filter(isMap) : [];
  const [first, ...rest] = path;
  if (path.length === 1 && (PARAM_NAMES as string[]).includes(first!)) {
    const users = items.filter((workload) => {
      const matrix = workload.get("matrix");
      return workload.has(first) || (isMap(matrix) && matrix.has(first));
    });
    if (Array.isArray(value)) {
      if (users.length === 0)
        throw new OverrideError(`--set ${key}: no workload sets "${first}"; a list must replace one`);
    } else doc.setIn(["defaults", first], doc.createNode(value));
    for (const workload of users) setParam(doc, workload, first!, value);
    return;
  }
  const workload = items.find((item) => item.get("name") === first);
  if (workload && rest.length > 0) {
    if (rest.length === 1) setParam(doc, workload, rest[0]!, value);
    else workload.setIn(rest, doc.createNode(value));
    return;
  }
  if (rest.length > 0) {
    const names = items.map((item) => String(item.get("name")));
    const hint = suggestSimilar(first!, names);
    throw new OverrideError(
      `--set ${key}: no workload named "${first}"${hint ? ` — did you mean "${hint}"?` : ""}`,
    );
  }
  const hint = suggestSimilar(first!, [...SPEC_ROOTS, ...PARAM_NAMES]);
  throw new OverrideError(
    `--set ${key}: expected PARAM, WORKLOAD.PARAM or a path under ${[...SPEC_ROOTS].join("/")}${hint ? ` — did you mean "${hint}"?` : ""}`,
  );
}

/** Sets a workload parameter; a value replaces the matrix dimension of the same name. */
function setParam(doc: Document.Parsed, workload: YAMLMap, param: string, value: unknown) {
  workload.set(param, doc.createNode(value));
  const matrix = workload.get("matrix");
  if (isMap(matrix)) matrix.delete(param);
}
