/**
 * Cross-field rules that run after the shape check, in the manner of changesets' rules.ts: each rule is a
 * named function over the whole spec that reports through the sink. Rules that need the resolved cases
 * (engine, op, bs vs size…) run during expansion instead (see expand.ts).
 */
import { didYouMean } from "../diagnostics/suggest.js";
import { formatParam, canonicalJson } from "./params.js";
import {
  PARAM_NAMES,
  type ParamName,
  type ParamValue,
  type Spec,
  type Target,
  type Workload,
} from "./schema.js";
import type { DiagnosticSink } from "./sink.js";
import { targetKindFacts, targetValue } from "./target-kinds.js";
import { hasLiteralUrlCredentials } from "../platform/redact.js";
import { evaluate } from "./vars.js";
import { SERIES_AXES } from "./words.js";

export interface RuleContext {
  spec: Spec;
  sink: DiagnosticSink;
  vars: Readonly<Record<string, number>>;
}

type Rule = (context: RuleContext) => void;

const uniqueWorkloadNames: Rule = ({ spec, sink }) => {
  const seen = new Set<string>();
  spec.workloads.forEach((workload, index) => {
    if (seen.has(workload.name)) {
      sink.error("duplicate-name", `another workload is already named "${workload.name}"`, [
        "workloads",
        index,
        "name",
      ]);
    }
    seen.add(workload.name);
  });
};

/** Every place a target or host group is named: workload values and lists, matrix, include/exclude, defaults. */
function* references(spec: Spec, param: "target" | "hosts") {
  const fromDefaults = spec.defaults?.[param];
  if (fromDefaults !== undefined) yield* namesIn(fromDefaults, ["defaults", param]);
  for (const [index, workload] of spec.workloads.entries()) {
    const base = ["workloads", index];
    const { [param]: value, matrix } = workload;
    if (Array.isArray(value))
      for (const [i, one] of value.entries()) yield* namesIn(one, [...base, param, i]);
    else if (value !== undefined) yield* namesIn(value, [...base, param]);
    for (const [i, one] of (matrix?.[param] ?? []).entries())
      yield* namesIn(one, [...base, "matrix", param, i]);
    for (const list of ["include", "exclude"] as const) {
      for (const [i, entry] of (matrix?.[list] ?? []).entries()) {
        const one = entry[param];
        if (one !== undefined) yield* namesIn(one, [...base, "matrix", list, i, param]);
      }
    }
  }
}

/** A name, or each name of a `{ together: [...] }` group of targets. */
function* namesIn(value: string | { together: string[] }, path: (string | number)[]) {
  if (typeof value === "string") yield { name: value, path };
  else for (const [i, name] of value.together.entries()) yield { name, path: [...path, "together", i] };
}

const targetsExist: Rule = ({ spec, sink }) => {
  const known = Object.keys(spec.targets);
  for (const { name, path } of references(spec, "target")) {
    if (!Object.hasOwn(spec.targets, name)) {
      const hint = didYouMean(name, known) || ` (defined targets: ${known.join(", ") || "none"})`;
      sink.error("unknown-target", `no target named "${name}"${hint}`, path);
    }
  }
};

const hostGroupsExist: Rule = ({ spec, sink }) => {
  const groups = spec.hosts ?? {};
  const known = Object.keys(groups);
  for (const { name, path } of references(spec, "hosts")) {
    if (!Object.hasOwn(groups, name)) {
      const hint =
        didYouMean(name, known) ||
        (known.length > 0 ? ` (defined host groups: ${known.join(", ")})` : "; define it under `hosts:`");
      sink.error("unknown-host-group", `no host group named "${name}"${hint}`, path);
    }
  }
};

/** Targets are placed by environment variables (BENCHSPEC_TARGET_<name>, "-" read as "_"): names must stay apart. */
const targetNamesDistinct: Rule = ({ spec, sink }) => {
  const seen = new Map<string, string>();
  for (const name of Object.keys(spec.targets)) {
    const variable = name.replace(/[^A-Za-z0-9]/g, "_");
    const other = seen.get(variable);
    if (other !== undefined) {
      sink.error(
        "duplicate-name",
        `target "${name}" cannot be told apart from "${other}" in BENCHSPEC_TARGET_${variable}; rename one`,
        ["targets", name],
        { at: "key" },
      );
    }
    seen.set(variable, name);
  }
};

/** Per target, what its kind asks for: a server to reach (an address or `launch`), credentials kept out of the spec. */
const targetKindRules: Rule = ({ spec, sink }) => {
  for (const [name, target] of Object.entries(spec.targets)) {
    checkServer(target, ["targets", name], sink);
    checkSecrets(target, ["targets", name], sink);
  }
};

function checkServer(target: Target, path: string[], sink: DiagnosticSink) {
  const { server } = targetKindFacts(target.kind);
  if (!server) return;
  const address = targetValue(target, server.addressKey);
  const launch = targetValue(target, "launch");
  if (address === undefined && launch === undefined) {
    sink.error(
      "no-endpoint",
      `an ${target.kind} target needs "${server.addressKey}" or "launch: ${server.launch}"`,
      path,
    );
  } else if (address !== undefined && launch !== undefined) {
    sink.error(
      "conflicting-keys",
      `"${server.addressKey}" and "launch" exclude each other`,
      [...path, "launch"],
      {
        at: "key",
      },
    );
  }
  if (server.freshNeedsLaunch && targetValue(target, "fresh") !== undefined && launch === undefined) {
    sink.error(
      "conflicting-keys",
      `"fresh" needs "launch: ${server.launch}" (${server.freshNeedsLaunch})`,
      [...path, "fresh"],
      { at: "key" },
    );
  }
}

/** A credential belongs in the environment: written into the spec, it ends up in git. */
function checkSecrets(target: Target, path: string[], sink: DiagnosticSink) {
  const { secrets, server } = targetKindFacts(target.kind);
  for (const key of secrets) {
    const value = targetValue(target, key);
    if (typeof value === "string" && !value.includes("${env:")) {
      sink.warning(
        "literal-secret",
        `${key} is written into the spec; prefer \${env:NAME} so it stays out of git`,
        [...path, key],
      );
    }
  }
  const address = server && targetValue(target, server.addressKey);
  if (typeof address === "string" && hasLiteralUrlCredentials(address)) {
    sink.warning(
      "literal-secret",
      `${server!.addressKey} holds credentials (user:password@); prefer \${env:NAME} so they stay out of git (benchspec shows and stores the URL without them)`,
      [...path, server!.addressKey],
    );
  }
}

const sweptOnce: Rule = ({ spec, sink }) => {
  spec.workloads.forEach((workload, index) => {
    for (const key of PARAM_NAMES) {
      if ((workload as Record<string, unknown>)[key] !== undefined && workload.matrix?.[key] !== undefined) {
        sink.error(
          "duplicate-dimension",
          `"${key}" is set on the workload and in its matrix; keep one`,
          ["workloads", index, "matrix", key],
          { at: "key" },
        );
      }
    }
  });
};

const matrixFilters: Rule = ({ spec, sink }) => {
  spec.workloads.forEach((workload, index) => {
    const dims = new Set(PARAM_NAMES.filter((key) => isSwept(workload, key)));
    (workload.matrix?.exclude ?? []).forEach((entry, i) => {
      for (const key of Object.keys(entry)) {
        if (!dims.has(key as never)) {
          const hint = didYouMean(key, [...dims]);
          sink.error(
            "unknown-param",
            `exclude key "${key}" is not a swept dimension${hint}; it can never match`,
            ["workloads", index, "matrix", "exclude", i, key],
            { at: "key" },
          );
        }
      }
    });
  });
};

/** For each value, the index of the first value equal to it (itself when it is the first). */
function firstIndexes(values: readonly unknown[]): number[] {
  const seen = new Map<string, number>();
  return values.map((value, i) => {
    const key = canonicalJson(value);
    const first = seen.get(key);
    if (first !== undefined) return first;
    seen.set(key, i);
    return i;
  });
}

/** A value listed twice would run the same case twice (as `….2`): lists, dimensions and include/exclude. */
const distinctValues: Rule = ({ spec, sink }) => {
  spec.workloads.forEach((workload, index) => {
    const base = ["workloads", index];
    const check = (key: ParamName, values: readonly unknown[], path: (string | number)[]) => {
      // Each value's canonical form once, and the first index of each: linear in the list's length.
      const firsts = firstIndexes(values);
      values.forEach((value, i) => {
        const first = firsts[i]!;
        if (first < i) {
          sink.error(
            "duplicate-value",
            `${formatParam(key, value as ParamValue)} is listed twice (items ${first} and ${i} are equal); each value must appear once`,
            [...path, i],
          );
        }
      });
    };
    for (const key of PARAM_NAMES) {
      const value = (workload as Record<string, unknown>)[key];
      if (Array.isArray(value)) check(key, value, [...base, key]);
      const dimension = workload.matrix?.[key];
      if (dimension) check(key, dimension, [...base, "matrix", key]);
    }
    for (const list of ["include", "exclude"] as const) {
      const entries = workload.matrix?.[list] ?? [];
      const firsts = firstIndexes(entries);
      entries.forEach((entry, i) => {
        const first = firsts[i]!;
        if (first < i) {
          sink.error(
            "duplicate-value",
            `this ${list} entry is the same as entry ${first}; each entry must appear once`,
            [...base, "matrix", list, i],
          );
        }
      });
    }
  });
};

export function isSwept(workload: Workload, key: (typeof PARAM_NAMES)[number]): boolean {
  return Array.isArray((workload as Record<string, unknown>)[key]) || workload.matrix?.[key] !== undefined;
}

const steadyCriterion: Rule = ({ spec, sink }) => {
  const check = (steady: Spec["workloads"][number]["steady"], path: (string | number)[]) => {
    if (!steady) return;
    if (steady.slope === undefined && steady.range === undefined) {
      sink.error("missing-key", 'steady needs a criterion: "slope: 10%" or "range: 2%"', path);
    } else if (steady.slope !== undefined && steady.range !== undefined) {
      sink.error("conflicting-keys", '"slope" and "range" exclude each other', [...path, "range"], {
        at: "key",
      });
    }
  };
  check(spec.defaults?.steady, ["defaults", "steady"]);
  spec.workloads.forEach((workload, index) => check(workload.steady, ["workloads", index, "steady"]));
};

const autotuneRange: Rule = ({ spec, sink }) => {
  spec.workloads.forEach((workload, index) => {
    const autotune = workload.autotune;
    if (!autotune) return;
    const path = ["workloads", index, "autotune"];
    if (autotune.max < autotune.start)
      sink.error("invalid-value", "max must be at least start", [...path, "max"]);
    if (isSwept(workload, autotune.param)) {
      sink.error(
        "conflicting-keys",
        `"${autotune.param}" is both tuned and swept; remove it from the matrix`,
        [...path, "param"],
      );
    }
  });
};

const expectations: Rule = ({ spec, sink, vars }) => {
  const names = spec.workloads.map((w) => w.name);
  (spec.expect ?? []).forEach((expect, index) => {
    const path = ["expect", index];
    if (!names.includes(expect.workload)) {
      const hint = didYouMean(expect.workload, names) || ` (workloads: ${names.join(", ")})`;
      sink.error("unknown-workload", `no workload named "${expect.workload}"${hint}`, [...path, "workload"]);
    }
    if (expect.atLeast === undefined && expect.atMost === undefined) {
      sink.error("missing-key", 'an expectation needs "atLeast" or "atMost"', path);
    }
    for (const bound of ["atLeast", "atMost"] as const) {
      const value = expect[bound];
      if (value !== undefined) evaluate(value, vars, [...path, bound], sink, Object.keys(spec.vars ?? {}));
    }
  });
};

const charts: Rule = ({ spec, sink }) => {
  const names = spec.workloads.map((w) => w.name);
  const axes = [...PARAM_NAMES, "time"];
  (spec.report?.charts ?? []).forEach((chart, index) => {
    const path = ["report", "charts", index];
    if (!names.includes(chart.workload)) {
      sink.error(
        "unknown-workload",
        `no workload named "${chart.workload}"${didYouMean(chart.workload, names)}`,
        [...path, "workload"],
      );
    }
    // A time series' other x axes (WSAT, HIR): an x only, never a colour or a panel.
    const seriesAxis = chart.x !== "time" && (SERIES_AXES as readonly string[]).includes(chart.x);
    if (seriesAxis && chart.y !== "throughput" && chart.y !== "iops")
      sink.error("invalid-value", `x: ${chart.x} is a time series: y must be throughput or iops`, [
        ...path,
        "y",
      ]);
    for (const key of ["x", "color", "facet"] as const) {
      const value = chart[key];
      if (key === "x" && seriesAxis) continue;
      if (value !== undefined && !axes.includes(value)) {
        const hint =
          didYouMean(value, axes) || ' (use a parameter name such as bs or concurrency, or "time")';
        sink.error("unknown-param", `"${value}" is not a parameter${hint}`, [...path, key]);
      }
    }
  });
  (spec.report?.limits ?? []).forEach((limit, index) => {
    const set = (["throughput", "iops", "latency"] as const).filter((key) => limit[key] !== undefined);
    if (set.length !== 1) {
      sink.error(
        "invalid-value",
        `a limit sets exactly one of throughput, iops, latency (found ${set.length})`,
        ["report", "limits", index],
      );
    }
    if (limit.target !== undefined && !Object.hasOwn(spec.targets, limit.target)) {
      const known = Object.keys(spec.targets);
      const hint = didYouMean(limit.target, known) || ` (defined targets: ${known.join(", ")})`;
      sink.error("unknown-target", `no target named "${limit.target}"${hint}`, [
        "report",
        "limits",
        index,
        "target",
      ]);
    }
    if (limit.interface !== undefined && limit.throughput === undefined) {
      sink.error(
        "invalid-value",
        `a limit of interface ${limit.interface} is its capacity: give it as throughput (e.g. 25Gbit/s)`,
        ["report", "limits", index, "interface"],
      );
    }
  });
};

export const RULES: Record<string, Rule> = {
  uniqueWorkloadNames,
  targetsExist,
  hostGroupsExist,
  targetNamesDistinct,
  targetKindRules,
  sweptOnce,
  distinctValues,
  matrixFilters,
  steadyCriterion,
  autotuneRange,
  expectations,
  charts,
};

export function runRules(context: RuleContext): void {
  for (const rule of Object.values(RULES)) rule(context);
}
