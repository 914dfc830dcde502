/**
 * Autotune's one loop, for every engine: measure the load at each value of a ramp (start, ×factor, up to
 * max) and stop by one of two rules.
 * - gain: stop at the first round that gained less than `stopWhenGainBelow` over the round before; the knee
 *   is the round before it (like `mc admin speedtest`).
 * - bound: stop at the first round that misses a latency bound (`p99` at most 20 ms), then bisect between
 *   the last round that met it and that one until they are within `resolution`; the value chosen is the
 *   highest that met the bound. A round meets it when it succeeded, its bound figure is at most the bound
 *   and, in an open loop, the client kept the schedule (a rate it could not start its operations at was
 *   not the rate measured).
 * The repetition's measurement is the chosen round's, with every round in `autotune`.
 */
import type { Measurement } from "../rows/row.js";
import { METRIC_INFO } from "../rows/metrics.js";
import { behindSchedule } from "../rows/schedule.js";
import type { LatencyMetric } from "../rows/metric-names.js";

export interface LatencyBound {
  metric: LatencyMetric;
  /** Seconds. */
  atMost: number;
}

export interface TuneRule {
  param: string;
  /** The values tried one after the other, ascending (autotuneRounds): integers. */
  ramp: readonly number[];
  /** Percent (the gain rule). */
  stopWhenGainBelow?: number | undefined;
  bound?: LatencyBound | undefined;
  /** Percent: the bound rule bisects until the value that met it and the one that missed are this close. */
  resolution?: number | undefined;
}

/** Parameters with the tuned one at a round's value (a rate's value is in operations per second). */
export const withTuned = <P extends object>(params: P, param: string, value: number): P => ({
  ...params,
  [param]: param === "rate" ? { opsPerSecond: value } : value,
});

/** The bisection's default closeness, percent. */
export const DEFAULT_RESOLUTION = 10;

/** Measures the load at one value; `round` counts the rounds run so far (data passes differ by round). */
export type MeasureAt = (value: number, round: number) => Promise<Measurement>;

type Round = { value: number; measurement: Measurement; met?: boolean };

/** Whether a round met the bound (see the module's comment). */
export function meetsBound(m: Measurement, bound: LatencyBound): boolean {
  const figure = METRIC_INFO[bound.metric].of(m);
  return (
    m.ok && figure !== undefined && figure <= bound.atMost && !(m.schedule && behindSchedule(m.schedule))
  );
}

export async function tune(rule: TuneRule, measureAt: MeasureAt, signal: AbortSignal): Promise<Measurement> {
  const rounds: Round[] = [];
  const run = async (value: number) => {
    const measurement = await measureAt(value, rounds.length);
    const round: Round = {
      value,
      measurement,
      ...(rule.bound && { met: meetsBound(measurement, rule.bound) }),
    };
    rounds.push(round);
    return round;
  };
  const chosen = rule.bound ? await byBound(rule, run, signal) : await byGain(rule, run, signal);
  const failed = rounds.find((r) => !r.measurement.ok);
  const knee = failed ?? chosen ?? rounds[0]!;
  return {
    ...knee.measurement,
    autotune: {
      param: rule.param,
      chosen: knee.value,
      ...(rule.bound && { bound: rule.bound }),
      rounds: rounds.map(({ value, measurement: m, met }) => ({
        value,
        throughput: m.throughput,
        iops: m.iops,
        bytes: m.bytes,
        seconds: m.seconds,
        ...(m.latency && { latency: m.latency }),
        ...(met !== undefined && { met }),
      })),
    },
  };
}

/** The gain rule: the round before the first that gained too little (the last round if none did). */
async function byGain(
  rule: TuneRule,
  run: (value: number) => Promise<Round>,
  signal: AbortSignal,
): Promise<Round | undefined> {
  const enough = 1 + (rule.stopWhenGainBelow ?? 0) / 100;
  let previous: Round | undefined;
  for (const value of rule.ramp) {
    if (signal.aborted) break;
    const round = await run(value);
    if (!round.measurement.ok) return undefined;
    if (previous && round.measurement.throughput < previous.measurement.throughput * enough) return previous;
    previous = round;
  }
  return previous;
}

/**
 * The bound rule: the ramp until a round misses, then bisection (geometric, on integers) between the last
 * round that met the bound and the first that missed. Undefined when the first round missed already.
 */
async function byBound(
  rule: TuneRule,
  run: (value: number) => Promise<Round>,
  signal: AbortSignal,
): Promise<Round | undefined> {
  let met: Round | undefined;
  let missed: Round | undefined;
  for (const value of rule.ramp) {
    if (signal.aborted) return met;
    const round = await run(value);
    if (!round.measurement.ok) return undefined;
    if (!round.met) {
      missed = round;
      break;
    }
    met = round;
  }
  const close = 1 + (rule.resolution ?? DEFAULT_RESOLUTION) / 100;
  while (met && missed && !signal.aborted) {
    const low = met.value;
    const high = missed.value;
    if (high - low <= 1 || high <= low * close) break;
    const middle = Math.min(high - 1, Math.max(low + 1, Math.round(Math.sqrt(low * high))));
    const round = await run(middle);
    if (!round.measurement.ok) return undefined;
    if (round.met) met = round;
    else missed = round;
  }
  return met;
}
