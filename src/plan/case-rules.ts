/**
 * The rules over resolved cases that expansion runs (each reports a located diagnostic): one case's
 * parameters against its target and host group, what a case over several targets needs, parameters that
 * mean nothing to a workload's cases, and the steps a workload runs once per target.
 */
import type { DiagnosticCode } from "../diagnostics/codes.js";
import type { SpecPath } from "../diagnostics/diagnostic.js";
import { engineParams, OP_PARAMS, targetWriter, type EngineInfo, type EngineTable } from "../spec/engines.js";
import { idFragment, sameValue } from "../spec/params.js";
import type { HostGroup, ParamName, Spec } from "../spec/schema.js";
import type { DiagnosticSink } from "../spec/sink.js";
import { targetValue, unconsentedWrite } from "../spec/target-kinds.js";
import { TRANSPORT_REFUSALS } from "../spec/transports.js";
import { formatDuration, formatSize } from "../spec/units.js";
import { isSizeDistribution, largestSize } from "../rows/sizes.js";
import type { Op } from "../spec/words.js";
import type { Case, CaseParams, ParamSource } from "./types.js";

/** Where a parameter's value came from: the source and its place in the spec. */
export interface Origin {
  source: ParamSource;
  path: SpecPath;
}

/**
 * Purge and preconditioning run once per workload and target (src/run/target-steps.ts), so every case of a
 * workload on one target must ask for the same ones.
 */
export function checkTargetSteps(cases: readonly Case[], base: SpecPath, sink: DiagnosticSink): void {
  for (const key of ["purge", "precondition"] as const) {
    const first = new Map<string, Case>();
    for (const c of cases) {
      const seen = first.get(c.target);
      if (!seen) first.set(c.target, c);
      else if (!sameValue(seen.params[key], c.params[key])) {
        sink.error(
          "varies-within-workload",
          `"${key}" runs once per workload and target, so it must be the same for every case of the workload on target "${c.target}" (${seen.id} and ${c.id} differ); put the different values in separate workloads`,
          c.sources[key] === "matrix" ? [...base, "matrix", key] : base,
        );
        break;
      }
    }
  }
}

/** What a case over several targets at once needs: an engine that runs its processes per target, this machine. */
export function checkTogether(
  params: CaseParams,
  origins: Partial<Record<ParamName, Origin>>,
  engines: EngineTable,
  base: SpecPath,
  sink: DiagnosticSink,
): boolean {
  const where = origins.target?.path ?? base;
  if (!engines[params.engine]!.together) {
    const able = Object.entries(engines)
      .filter(([, e]) => e.together)
      .map(([n]) => n);
    sink.error(
      "invalid-together",
      `engine ${params.engine} cannot run one case over several targets at once; engines that can: ${able.join(", ")}`,
      where,
    );
    return false;
  }
  if (params.hosts !== undefined) {
    sink.error(
      "invalid-together",
      `a case over several targets at once runs on this machine only: drop "hosts" or run one target per case`,
      origins.hosts?.path ?? where,
    );
    return false;
  }
  return true;
}

/** Parameters the user set on a workload that mean nothing to any of its cases. */
export function reportUnused(
  unused: ReadonlyMap<ParamName, Origin>,
  used: ReadonlySet<ParamName>,
  names: ReadonlySet<string>,
  ops: ReadonlySet<Op>,
  engines: EngineTable,
  sink: DiagnosticSink,
): void {
  for (const [key, origin] of unused) {
    if (used.has(key) || names.size === 0) continue;
    const forOps = OP_PARAMS[key];
    if (forOps && [...names].some((engine) => engineParams(engines[engine]!).has(key))) {
      sink.error(
        "param-not-applicable",
        `"${key}" applies to op ${[...forOps].join("/")}; this workload's ops are ${[...ops].join(", ")}`,
        origin.path,
      );
      continue;
    }
    const users = Object.entries(engines)
      .filter(([, e]) => e.params.includes(key))
      .map(([name]) => name);
    sink.error(
      "param-not-applicable",
      `"${key}" has no meaning for engine ${[...names].join(", ")}${users.length ? ` (it is used by ${users.join(", ")})` : ""}`,
      origin.path,
    );
  }
}

/** Rules over one resolved case. */
export function checkCase(
  params: CaseParams,
  info: EngineInfo,
  origins: Partial<Record<ParamName, Origin>>,
  target: Spec["targets"][string],
  targetName: string,
  group: HostGroup | undefined,
  base: SpecPath,
  sink: DiagnosticSink,
): boolean {
  let ok = true;
  const pathOf = (key: ParamName) => origins[key]?.path ?? base;
  for (const key of ["size", "bs"] as const) {
    if (!isSizeDistribution(params[key]) || info.drawnSize === key) continue;
    sink.error(
      "param-not-applicable",
      `"${key}" of engine ${params.engine} is one value, not drawn from a distribution${info.drawnSize ? ` (its "${info.drawnSize}" can be)` : ""}`,
      pathOf(key),
    );
    ok = false;
  }
  if (
    params.bs !== undefined &&
    params.size !== undefined &&
    largestSize(params.bs) > largestSize(params.size)
  ) {
    sink.error(
      "bs-exceeds-size",
      `bs ${isSizeDistribution(params.bs) ? `up to ${formatSize(largestSize(params.bs))}` : idFragment("bs", params.bs)} is larger than size ${idFragment("size", params.size)}`,
      pathOf(origins.bs ? "bs" : "size"),
    );
    ok = false;
  }
  const why = targetWriter(params.op, params);
  const destroys = why !== undefined ? unconsentedWrite(target) : undefined;
  if (destroys) {
    sink.error(
      "not-destructive",
      `${why} to ${destroys.noun} ${destroys.place}, which destroys its contents; add "destructive: true" to target "${targetName}" if that is intended`,
      ["targets", targetName],
    );
    ok = false;
  }
  if (params.hosts !== undefined && targetValue(target, "launch") !== undefined) {
    sink.error(
      "unreachable-from-hosts",
      `the cases on host group "${params.hosts}" cannot reach target "${targetName}": a launched server listens on this machine's loopback only; run the server where the hosts reach it and give its address instead of "launch"`,
      pathOf("hosts"),
    );
    ok = false;
  }
  const refused = group && TRANSPORT_REFUSALS[group.transport]?.({ engine: params.engine, info, target });
  if (refused) {
    sink.error(
      "unsupported-transport",
      `the cases on host group "${params.hosts}" (transport ${group.transport}) cannot run here: ${refused}`,
      pathOf("hosts"),
    );
    ok = false;
  }
  for (const key of ["purge", "idle"] as const) {
    // `purge: false` and `idle: 0s` ask for nothing, which a host group can do.
    const asked = params[key] !== undefined && params[key] !== false && params[key] !== 0;
    if (params.hosts !== undefined && asked) {
      sink.error(
        "unsupported-with-hosts",
        `"${key}" is not supported for cases on a host group ("${params.hosts}"): it runs on this machine's targets only`,
        pathOf(key),
      );
      ok = false;
    }
  }
  if (params.hosts !== undefined && params.autotune !== undefined) {
    // Each host would tune alone, at its own pace: the merged figure would mix values no host ran together.
    sink.error(
      "unsupported-with-hosts",
      `"autotune" is not supported for cases on a host group ("${params.hosts}"): each host would tune on its own, and their merged figure would be of no load they ran together; sweep the parameter as a list instead (e.g. concurrency: [1, 2, 4, 8])`,
      pathOf("autotune"),
    );
    ok = false;
  }
  if (params.arrivals !== undefined && params.rate === undefined && params.autotune?.param !== "rate") {
    sink.error(
      "param-not-applicable",
      `"arrivals" spaces the scheduled starts of an open loop: set "rate" too (e.g. rate: 200), or remove it`,
      pathOf("arrivals"),
    );
    ok = false;
  }
  if (params.steady && params.duration === undefined) {
    sink.error(
      "missing-runtime",
      'steady-state detection is time-based: set "duration" (the longest a repetition may run)',
      pathOf("steady"),
    );
    ok = false;
  }
  if (params.duration !== undefined) {
    const duration = formatDuration(params.duration);
    if (params.ramp !== undefined && params.ramp > params.duration) {
      sink.error(
        "longer-than-duration",
        `ramp ${formatDuration(params.ramp)} is longer than duration ${duration}, the run time of each repetition`,
        pathOf("ramp"),
      );
      ok = false;
    }
    const steady = params.steady;
    if (steady && steady.window + (steady.ramp ?? 0) > params.duration) {
      const needs =
        steady.ramp !== undefined
          ? `steady.ramp + steady.window (${formatDuration(steady.ramp)} + ${formatDuration(steady.window)})`
          : `steady.window ${formatDuration(steady.window)}`;
      sink.error(
        "longer-than-duration",
        `${needs} must fit into duration ${duration}, or steady state can never be detected`,
        [
          ...pathOf("steady"),
          steady.ramp !== undefined && steady.window <= params.duration ? "ramp" : "window",
        ],
      );
      ok = false;
    }
  }
  if (params.autotune && !checkAutotune(params, info, pathOf, sink)) ok = false;
  return ok;
}

/** An autotune's rule and parameter, against the case it tunes. */
function checkAutotune(
  params: CaseParams,
  info: EngineInfo,
  pathOf: (key: ParamName) => SpecPath,
  sink: DiagnosticSink,
): boolean {
  const tune = params.autotune!;
  const path = pathOf("autotune");
  const errors: [DiagnosticCode, string, SpecPath][] = [];
  if (!engineParams(info).has(tune.param))
    errors.push([
      "param-not-applicable",
      `engine ${params.engine} has no "${tune.param}" to tune`,
      [...path, "param"],
    ]);
  if (tune.stopWhenGainBelow === undefined && tune.bound === undefined)
    errors.push([
      "missing-key",
      'autotune needs a rule to stop by: "stopWhenGainBelow" (e.g. 5%: stop when the throughput gains less) or "bound" (e.g. { metric: p99, atMost: 20ms }: the highest load that meets it)',
      path,
    ]);
  if (tune.stopWhenGainBelow !== undefined && tune.bound !== undefined)
    errors.push([
      "conflicting-keys",
      '"stopWhenGainBelow" and "bound" exclude each other: autotune stops by one rule',
      [...path, "bound"],
    ]);
  if (tune.resolution !== undefined && tune.bound === undefined)
    errors.push([
      "param-not-applicable",
      '"resolution" is how close the bound rule\'s bisection gets: set "bound" too, or remove it',
      [...path, "resolution"],
    ]);
  if (tune.bound && !info.metrics.includes(tune.bound.metric))
    errors.push([
      "metric-not-reported",
      `engine ${params.engine} does not report ${tune.bound.metric}; it reports ${info.metrics.join(", ")}`,
      [...path, "bound", "metric"],
    ]);
  if (params.rate !== undefined)
    errors.push([
      "conflicting-keys",
      tune.param === "rate"
        ? '"rate" is what this autotune tunes (from its start): remove "rate"'
        : `"rate" and an autotune of ${tune.param} exclude each other: autotune raises the load of a closed loop, rate fixes an open loop's schedule; tune the rate instead (autotune: { param: rate, … }) or sweep it as a list (e.g. rate: [100, 200, 400])`,
      pathOf("rate"),
    ]);
  for (const [code, message, at] of errors) sink.error(code, message, at);
  return errors.length === 0;
}
