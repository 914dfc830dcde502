/** Synthetic runs for report tests: real plans (from the scenario specs) with generated rows. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plan } from "../../src/plan/types.js";
import type { ResultRow, TimeseriesRow } from "../../src/rows/row.js";
import { loadSpec } from "../../src/engines/language.js";
import { mergeHostMeasurements } from "../../src/results/merge-hosts.js";
import { seededRandom } from "../../src/rows/random.js";
import { summarizeTelemetry } from "../../src/telemetry/summary.js";
import type { TelemetryRow, TelemetrySample } from "../../src/rows/telemetry.js";
import { SPECS_DIR } from "../support/spec.js";

export async function scenarioPlan(name: string, sets: string[] = []): Promise<Plan> {
  const loaded = await loadSpec(join(SPECS_DIR, `${name}.yaml`), { sets });
  if (!loaded.plan) throw new Error(loaded.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return loaded.plan;
}

/** A deterministic PRNG, so synthetic runs are the same on every test run. */
export const random = seededRandom;

/** Roughly normal noise (sum of uniforms). */
export const noise = (rand: () => number) => rand() + rand() + rand() + rand() - 2;

export interface SynthOptions {
  reps?: number;
  seed?: number;
  /** Throughput (bytes/s) of a case's repetition; default: by case index, ±5% noise. */
  throughput?: (c: Plan["cases"][number], rep: number, rand: () => number) => number;
  failed?: (c: Plan["cases"][number], rep: number) => boolean;
  spec?: string;
}

export function synthRows(plan: Plan, options: SynthOptions = {}): ResultRow[] {
  const rand = random(options.seed ?? 1);
  const rows: ResultRow[] = [];
  for (const c of plan.cases) {
    const reps = options.reps ?? c.params.repeat;
    for (let rep = 1; rep <= reps; rep += 1) {
      const throughput =
        options.throughput?.(c, rep, rand) ?? 100e6 * (1 + (c.index % 5)) * (1 + 0.05 * noise(rand));
      const bs = typeof c.params.bs === "number" ? c.params.bs : 1024 * 1024;
      const seconds = 2 * (1 + 0.02 * noise(rand));
      const failed = options.failed?.(c, rep) ?? false;
      const latency =
        c.engine === "fio"
          ? {
              mean: bs / throughput,
              p50: bs / throughput,
              p90: (2 * bs) / throughput,
              p99: (5 * bs) / throughput,
              "p99.9": (9 * bs) / throughput,
            }
          : undefined;
      rows.push({
        v: 1,
        source: "run",
        spec: options.spec ?? plan.name,
        specHash: plan.specHash,
        case: c.id,
        workload: c.workload,
        target: c.target,
        engine: c.engine,
        op: c.op,
        params: c.params,
        repetition: rep,
        warmup: false,
        ok: !failed,
        ...(failed && { error: "synthetic failure" }),
        start: new Date(Date.UTC(2026, 0, 1, 0, 0, rep)).toISOString(),
        end: new Date(Date.UTC(2026, 0, 1, 0, 0, rep + 2)).toISOString(),
        bytes: failed ? 0 : throughput * seconds,
        ops: failed ? 0 : (throughput * seconds) / bs,
        seconds,
        throughput: failed ? 0 : throughput,
        iops: failed ? 0 : throughput / bs,
        ...(latency && !failed && { latency }),
      });
    }
  }
  return rows;
}

/** A series per case that has `sample` (or every case given), `points` samples per repetition. */
export function synthSeries(
  plan: Plan,
  options: { reps?: number; points?: number; cases?: string[]; seed?: number } = {},
): TimeseriesRow[] {
  const rand = random(options.seed ?? 7);
  const out: TimeseriesRow[] = [];
  for (const c of plan.cases) {
    if (options.cases ? !options.cases.includes(c.id) : c.params.sample === undefined) continue;
    const dt = typeof c.params.sample === "number" ? c.params.sample : 1;
    for (let rep = 1; rep <= (options.reps ?? c.params.repeat); rep += 1) {
      for (let i = 1; i <= (options.points ?? 20); i += 1) {
        const throughput = 200e6 * (1 + 0.1 * noise(rand)) * (i < 5 ? 1.5 : 1);
        out.push({
          case: c.id,
          repetition: rep,
          t: i * dt + 0.001 * rand(),
          throughput,
          iops: throughput / 4096,
        });
      }
    }
  }
  return out;
}

/**
 * Rows and series of every case run on several hosts at once, merged as a run merges them: each host's
 * synthetic rows (`speed` scales its throughput, `delay` seconds its start) with a series of `points`
 * samples, through mergeHostMeasurements.
 */
export function synthHostRows(
  plan: Plan,
  hosts: readonly { host: string; speed: number; delay: number }[],
  options: { reps?: number; points?: number } = {},
): { rows: ResultRow[]; series: TimeseriesRow[] } {
  const perHost = hosts.map((h, i) =>
    synthRows(plan, {
      seed: i + 1,
      ...(options.reps !== undefined && { reps: options.reps }),
      throughput: (c) => 100e6 * h.speed * (1 + (c.index % 3)),
    }),
  );
  const rows: ResultRow[] = [];
  const series: TimeseriesRow[] = [];
  perHost[0]!.forEach((first, r) => {
    const parts = hosts.map((h, i) => {
      const row = perHost[i]![r]!;
      const shift = (iso: string) => new Date(Date.parse(iso) + h.delay * 1000).toISOString();
      const {
        v,
        source,
        spec,
        specHash,
        case: id,
        workload,
        target,
        engine,
        op,
        params,
        repetition,
        warmup,
        ...measured
      } = row;
      const points = options.points ?? 4;
      const timeseries = Array.from({ length: points }, (_, k) => ({
        t: ((k + 1) * row.seconds) / points,
        throughput: row.throughput,
        iops: row.iops,
      }));
      return {
        host: h.host,
        measurement: { ...measured, start: shift(row.start), end: shift(row.end), timeseries },
      };
    });
    const { timeseries, errorCode, ...merged } = mergeHostMeasurements(parts);
    const { v, source, spec, specHash, workload, target, engine, op, params, repetition, warmup } = first;
    rows.push({
      v,
      source,
      spec,
      specHash,
      case: first.case,
      workload,
      target,
      engine,
      op,
      params,
      repetition,
      warmup,
      ...merged,
    });
    for (const point of timeseries ?? []) series.push({ case: first.case, repetition, ...point });
  });
  return { rows, series };
}

/**
 * Host telemetry of synthetic rows, as a run samples it: per repetition `points` samples a second apart
 * (CPU `busy` of all cores, `lo` and eth0 traffic with eth0 sending `tx` bytes/s), and each row's
 * `telemetry`, summarized from its samples the way a run does (telemetry/summary.ts).
 */
export function synthTelemetry(
  rows: readonly ResultRow[],
  of: (row: ResultRow) => { busy: number; tx: number; host?: string },
  points = 10,
): { rows: ResultRow[]; telemetry: TelemetryRow[] } {
  const telemetry: TelemetryRow[] = [];
  const withTelemetry = rows.map((row) => {
    const { busy, tx, host } = of(row);
    const samples: TelemetrySample[] = Array.from({ length: points }, (_, i) => ({
      t: i + 1,
      seconds: 1,
      cpu: { user: busy * 0.8, system: busy * 0.2, iowait: 0.01 },
      net: { lo: { rx: 5e6, tx: 5e6 }, eth0: { rx: tx / 100, tx } },
      disk: {},
      procs: {},
    }));
    for (const sample of samples)
      telemetry.push({
        ...sample,
        case: row.case,
        repetition: row.repetition,
        warmup: row.warmup,
        ...(host !== undefined && { host }),
      });
    return { ...row, telemetry: summarizeTelemetry(samples)! };
  });
  return { rows: withTelemetry, telemetry };
}

/**
 * A run directory as `benchspec run` leaves it (plan.json, run.json complete, results.ndjson with `results`:
 * the file's text, or rows written one per line), with what `extra` adds (summary.json, timeseries.ndjson…).
 */
export async function writeRunDir(
  dir: string,
  plan: Plan,
  results: string | readonly object[],
  extra: Record<string, string> = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "plan.json"),
    JSON.stringify({ format: "benchspec-plan/1", spec: plan.name, ...plan }),
  );
  await writeFile(
    join(dir, "run.json"),
    JSON.stringify({ format: "benchspec-run/1", status: "complete", runId: "t", specHash: plan.specHash }),
  );
  const text =
    typeof results === "string" ? results : results.map((row) => `${JSON.stringify(row)}\n`).join("");
  await writeFile(join(dir, "results.ndjson"), text);
  for (const [name, content] of Object.entries(extra)) await writeFile(join(dir, name), content);
}
