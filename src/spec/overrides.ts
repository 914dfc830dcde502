/**
 * `--set key=value` overrides, applied to the parsed YAML document before validation so the values are
 * checked exactly like the spec's own. Keys:
 *   vars.NAME=…, targets.NAME.KEY=…, hosts.GROUP.KEY=…,
 *   defaults.PARAM=…, report.…                                     — a path in the spec
 *   WORKLOAD.PARAM=…                                               — one workload
 *   WORKLOAD.KEY.KEY…=… (e.g. WORKLOAD.matrix.include=…)           — a path in one workload
 *   PARAM=…                                                        — every workload that uses it (as a
 *                                                                    value, list, matrix dimension or in
 *                                                                    include/exclude); a single value also
 *                                                                    goes into defaults
 * Values are YAML: `--set size=4KiB`, `--set 'bs=[4KiB, 1MiB]'`.
 *
 * A parameter override replaces the parameter everywhere in the workload (see overrideParam), so no
 * `matrix` or `include` entry of the spec can shadow it: a value makes it that value in every case, a
 * list makes it a dimension with exactly those values.
 */
import {
  isCollection,
  isMap,
  isNode,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type Document,
  type YAMLMap,
} from "yaml";
import { suggestSimilar } from "../diagnostics/suggest.js";
import { BenchspecError } from "../platform/errors.js";
import { canonicalJson, sameValue } from "./params.js";
import { PARAM_NAMES, paramShape, SWEEPABLE_PARAMS, type ParamName } from "./schema.js";
import { FORBIDDEN_KEYS } from "./source.js";

const SPEC_ROOTS = new Set(["vars", "targets", "hosts", "defaults", "report", "name", "description"]);

export function applyOverride(doc: Document.Parsed, assignment: string): void {
  const eq = assignment.indexOf("=");
  if (eq <= 0) throw new BenchspecError("invalid-override", `--set "${assignment}": expected key=value`);
  const key = assignment.slice(0, eq).trim();
  const path = key.split(".");
  const forbidden = path.find((segment) => FORBIDDEN_KEYS.has(segment));
  if (forbidden !== undefined)
    throw new BenchspecError(
      "invalid-override",
      `--set ${key}: the key "${forbidden}" is not allowed (it could alter objects)`,
    );
  const value = parseValue(key, assignment.slice(eq + 1));
  // `hosts` is both a spec root (the groups) and a parameter (`--set hosts=clients`): one segment is the parameter.
  if (SPEC_ROOTS.has(path[0]!) && !(path.length === 1 && isParam(path[0]!))) {
    setPath(doc, doc, path, value, key);
    return;
  }
  const workloads = doc.get("workloads");
  const items = isSeq(workloads) ? workloads.items.filter(isMap) : [];
  const [first, ...rest] = path;
  if (path.length === 1 && isParam(first!)) {
    const users = items.filter((workload) => usesParam(workload, first));
    if (Array.isArray(value)) {
      if (users.length === 0)
        throw new BenchspecError(
          "invalid-override",
          `--set ${key}: no workload sets "${first}"; a list must replace one`,
        );
    } else doc.setIn(["defaults", first], doc.createNode(value));
    for (const workload of users) overrideParam(doc, workload, first, value);
    return;
  }
  const workload = items.find((item) => item.get("name") === first);
  if (workload && rest.length > 0) {
    if (rest.length === 1 && isParam(rest[0]!)) overrideParam(doc, workload, rest[0], value);
    else setPath(doc, workload, rest, value, key);
    return;
  }
  if (rest.length > 0) {
    const names = items.map((item) => String(item.get("name")));
    const hint = suggestSimilar(first!, names);
    throw new BenchspecError(
      "invalid-override",
      `--set ${key}: no workload named "${first}"${hint ? ` — did you mean "${hint}"?` : ""}`,
    );
  }
  const hint = suggestSimilar(first!, [...SPEC_ROOTS, ...PARAM_NAMES]);
  throw new BenchspecError(
    "invalid-override",
    `--set ${key}: expected PARAM, WORKLOAD.PARAM or a path under ${[...SPEC_ROOTS].join("/")}${hint ? ` — did you mean "${hint}"?` : ""}`,
  );
}

/** The value as YAML, held to the same rules as a spec file's values (no aliases, no forbidden keys). */
function parseValue(key: string, text: string): unknown {
  const value = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const problem = value.errors[0];
  if (problem)
    throw new BenchspecError(
      "invalid-override",
      `--set ${key}: the value is not valid YAML (${problem.message.split("\n")[0]})`,
    );
  let refused: string | undefined;
  visit(value, {
    Alias: () => {
      refused = "an alias (*name)";
      return visit.BREAK;
    },
    Pair: (_, pair) => {
      const name = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (name !== undefined && FORBIDDEN_KEYS.has(name)) {
        refused = `the key "${name}" (it could alter objects)`;
        return visit.BREAK;
      }
    },
  });
  if (refused !== undefined)
    throw new BenchspecError("invalid-override", `--set ${key}: the value holds ${refused}`);
  return value.toJS();
}

/**
 * Sets `path` below `node`, refusing to go through a value that is neither a mapping nor a list (the YAML
 * library throws a bare "Expected YAML collection" there).
 */
function setPath(
  doc: Document.Parsed,
  node: Document.Parsed | YAMLMap,
  path: string[],
  value: unknown,
  key: string,
) {
  for (let depth = 1; depth < path.length; depth++) {
    const inner = node.getIn(path.slice(0, depth), true);
    const whole = key
      .split(".")
      .slice(0, key.split(".").length - path.length + depth)
      .join(".");
    // A list is entered by the index of an entry it has: past its end (or not a whole number), the YAML
    // library throws a bare error, or fills the gap with empty entries.
    if (isSeq(inner)) {
      const index = path[depth]!;
      const size = inner.items.length;
      if (!/^\d+$/.test(index) || Number(index) >= size)
        throw new BenchspecError(
          "invalid-override",
          `--set ${key}: ${whole} is a list of ${size} entr${size === 1 ? "y" : "ies"}; "${index}" is not one of its indexes (${size > 0 ? `0–${size - 1}` : "it has none"}); set the whole list to change its length (--set ${whole}=[…])`,
        );
      continue;
    }
    if (inner === undefined || isCollection(inner)) continue;
    throw new BenchspecError(
      "invalid-override",
      `--set ${key}: ${whole} is a single value, not a mapping or a list; set it whole (--set ${whole}=…)`,
    );
  }
  node.setIn(path, doc.createNode(value));
}

const isParam = (key: string): key is ParamName => (PARAM_NAMES as string[]).includes(key);
const SWEEPABLE: ReadonlySet<string> = new Set(SWEEPABLE_PARAMS);
const FILTERS = ["include", "exclude"] as const;

/** Whether a workload sets the parameter anywhere: as a value or list, a matrix dimension, in include/exclude. */
function usesParam(workload: YAMLMap, key: ParamName): boolean {
  if (workload.has(key)) return true;
  const matrix = workload.get("matrix");
  if (!isMap(matrix)) return false;
  if (matrix.has(key)) return true;
  return FILTERS.some((list) => {
    const entries = matrix.get(list);
    return isSeq(entries) && entries.items.some((entry) => isMap(entry) && entry.has(key));
  });
}

/**
 * Overrides a parameter everywhere in one workload, so that every case gets the value (or one of the
 * values of the list) given:
 *   - the workload's value, its list or its `matrix` dimension is replaced: a value is set on the workload
 *     (the parameter is no longer swept), a list becomes the dimension (on the workload, or under `matrix`
 *     for parameters that cannot be lists there);
 *   - include entries: if the parameter was a dimension, an entry selects cells by it — an entry for a
 *     value that is no longer swept is dropped, the others stay (with a single value, the key is removed
 *     from them: every cell has it now); if it was not a dimension, an entry adds it to cells — a single
 *     value replaces the entry's, a list removes it from the entry (it now applies to every value);
 *   - exclude entries that name the parameter are dropped with a single value (it is no longer swept, and
 *     nothing asked for with --set is excluded); with a list, the ones for values not in it are dropped;
 *   - entries left empty, and entries that became identical to an earlier one, are removed.
 */
function overrideParam(doc: Document.Parsed, workload: YAMLMap, key: ParamName, value: unknown): void {
  const sweep = Array.isArray(value);
  const wanted = (sweep ? (value as unknown[]) : [value]).map((v) => normalize(key, v));
  const listed = (entryValue: unknown) => wanted.some((v) => sameValue(v, normalize(key, entryValue)));
  let matrix = workload.get("matrix");
  const wasDimension = isSeq(workload.get(key)) || (isMap(matrix) && matrix.has(key));

  if (sweep && !SWEEPABLE.has(key)) {
    if (!isMap(matrix)) workload.set("matrix", (matrix = doc.createNode({})));
    (matrix as YAMLMap).set(key, doc.createNode(value));
    workload.delete(key);
  } else {
    workload.set(key, doc.createNode(value));
    if (isMap(matrix)) matrix.delete(key);
  }
  if (!isMap(matrix)) return;

  for (const list of FILTERS) {
    const entries = matrix.get(list);
    if (!isSeq(entries)) continue;
    const kept: unknown[] = [];
    const seen = new Map<string, boolean>();
    for (const entry of entries.items) {
      const changed = isMap(entry) && entry.has(key);
      if (changed) {
        const entryValue = toJS(doc, entry.get(key, true));
        if (list === "exclude") {
          if (!sweep || !listed(entryValue)) continue;
        } else if (wasDimension) {
          if (!listed(entryValue)) continue;
          if (!sweep) entry.delete(key);
        } else if (sweep) entry.delete(key);
        else entry.set(key, doc.createNode(value));
        if (entry.items.length === 0) continue;
      }
      // Entries the override made identical would make identical cases: keep the first. (Duplicates
      // written in the spec stay, for the duplicate-value rule to report.)
      const identity = isMap(entry) ? canonicalJson(normalizeEntry(toJS(doc, entry))) : undefined;
      if (identity !== undefined) {
        const earlier = seen.get(identity);
        if (earlier !== undefined && (earlier || changed)) continue;
        seen.set(identity, changed || (earlier ?? false));
      }
      kept.push(entry);
    }
    entries.items = kept;
  }
}

const toJS = (doc: Document.Parsed, node: unknown): unknown => (isNode(node) ? node.toJS(doc) : node);

/** The value as the schema normalizes it (4096B and 4KiB compare equal); as written if it is not valid. */
function normalize(key: ParamName, value: unknown): unknown {
  const parsed = paramShape[key].safeParse(value);
  return parsed.success ? parsed.data : value;
}

function normalizeEntry(entry: unknown): unknown {
  if (typeof entry !== "object" || entry === null) return entry;
  return Object.fromEntries(
    Object.entries(entry).map(([key, value]) => [key, isParam(key) ? normalize(key, value) : value]),
  );
}

/** The group `--hosts H1,H2` (without a group name) makes and puts every workload on. */
export const COMMAND_LINE_GROUP = "command-line";

/**
 * `--hosts [GROUP=]HOST,HOST…`, as the --set assignments it stands for: the same spec runs on this machine
 * or on many. With GROUP, that group's ssh hosts (a group the spec defines keeps its other settings); without,
 * a group of ssh hosts every workload runs on.
 */
export function hostsOption(doc: Document.Parsed, option: string): string[] {
  const eq = option.indexOf("=");
  const group = eq > 0 ? option.slice(0, eq).trim() : COMMAND_LINE_GROUP;
  const hosts = (eq > 0 ? option.slice(eq + 1) : option)
    .split(",")
    .map((host) => host.trim())
    .filter((host) => host !== "");
  if (hosts.length === 0)
    throw new BenchspecError("invalid-override", `--hosts "${option}": expected [GROUP=]HOST,HOST…`);
  const list = JSON.stringify(hosts);
  const defined = isMap(doc.getIn(["hosts", group], true));
  // A group whose transport places its hosts itself (Slurm's nodes, Kubernetes' pods) has none to name.
  if (defined && doc.getIn(["hosts", group, "hosts"]) === undefined) {
    const node = doc.getIn(["hosts", group], true) as YAMLMap;
    const counts = node.items.filter(
      (pair) => typeof doc.getIn(["hosts", group, String(pair.key)]) === "number",
    );
    const how = counts.map((pair) => `--set hosts.${group}.${String(pair.key)}=N`).join(" or ");
    throw new BenchspecError(
      "invalid-override",
      `--hosts ${group}=…: host group ${group} (transport ${String(doc.getIn(["hosts", group, "transport"]))}) has no list of hosts to name: its transport places them${how ? `; say how many with ${how}` : ""}`,
    );
  }
  return [
    defined ? `hosts.${group}.hosts=${list}` : `hosts.${group}={transport: ssh, hosts: ${list}}`,
    ...(eq > 0 ? [] : [`hosts=${group}`]),
  ];
}

/**
 * `--only NAME…`: the spec as if it had only these workloads — the others, and the expectations and charts
 * of theirs, left out of the document before validation (so the plan, its hash and its report are of
 * what runs). A name the spec does not have is an error naming those it has.
 */
export function onlyWorkloads(doc: Document.Parsed, names: readonly string[]): void {
  const workloads = doc.get("workloads", true);
  const nameOf = (item: unknown) => (isMap(item) ? item.get("name") : undefined);
  const have = isSeq(workloads) ? workloads.items.map(nameOf).filter((n) => typeof n === "string") : [];
  const unknown = names.filter((name) => !have.includes(name));
  if (unknown.length > 0)
    throw new BenchspecError(
      "invalid-override",
      `--only ${unknown.join(", ")}: the spec has no such workload; its workloads: ${have.join(", ") || "none"}`,
    );
  const keep = (item: unknown) => {
    const workload = isMap(item) ? item.get("workload") : undefined;
    return typeof workload !== "string" || names.includes(workload);
  };
  if (isSeq(workloads))
    workloads.items = workloads.items.filter((item) => names.includes(nameOf(item) as string));
  for (const path of [["expect"], ["report", "charts"]]) {
    const list = doc.getIn(path, true);
    if (isSeq(list)) list.items = list.items.filter(keep);
  }
}
