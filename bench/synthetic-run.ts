/**
 * Synthetic run directories for the benchmarks of what reads results (report, compare): a real plan and
 * generated rows, ~10% noise on throughput.
 */
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { once } from "node:events";
import { stringify } from "yaml";
import type { Plan } from "../src/plan/types.js";
import { validateText } from "../src/engines/language.js";
import { seededRandom as random } from "../src/rows/random.js";
import type { ResultRow, TimeseriesRow } from "../src/rows/row.js";

async function writeLines(file: string, count: number, line: (i: number) => string) {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i += 1) {
    if (!out.write(`${line(i)}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** A run directory of `rows` synthetic result rows (repetition by repetition over the plan's cases). */
export async function writeRun(
  dir: string,
  { specText, ...plan }: Plan & { specText?: string },
  rows: number,
  seriesPoints: number,
  seed = 1,
) {
  if (specText !== undefined) await writeFile(join(dir, "spec.yaml"), specText);
  await writeFile(
    join(dir, "plan.json"),
    JSON.stringify({ format: "benchspec-plan/1", spec: plan.name, ...plan }),
  );
  const rand = random(seed);
  const cases = plan.cases;
  await writeLines(join(dir, "results.ndjson"), rows, (i) => {
    const c = cases[i % cases.length]!;
    const rep = Math.floor(i / cases.length) + 1;
    const bs = typeof c.params.bs === "number" ? c.params.bs : 4096;
    const throughput = 2e8 * (1 + (c.index % 7) / 3) * (1 + 0.1 * (rand() - 0.5));
    const row: ResultRow = {
      v: 1,
      source: "run",
      spec: plan.name,
      specHash: plan.specHash,
      case: c.id,
      workload: c.workload,
      target: c.target,
      engine: c.engine,
      op: c.op,
      params: c.params,
      repetition: rep,
      warmup: false,
      ok: rand() > 0.001,
      start: "2026-01-01T00:00:00.000Z",
      end: "2026-01-01T00:00:02.000Z",
      bytes: throughput * 2,
      ops: (throughput * 2) / bs,
      seconds: 2,
      throughput,
      iops: throughput / bs,
      latency: {
        mean: bs / throughput,
        p50: bs / throughput,
        p90: (2 * bs) / throughput,
        p99: (4 * bs) / throughput,
        "p99.9": (8 * bs) / throughput,
      },
    };
    return JSON.stringify(row);
  });
  if (seriesPoints > 0) {
    const c = cases.find((x) => x.params.sample !== undefined) ?? cases[0]!;
    await writeLines(join(dir, "timeseries.ndjson"), seriesPoints, (i) => {
      const point: TimeseriesRow = {
        case: c.id,
        repetition: 1,
        warmup: false,
        t: i * 0.1,
        throughput: 4e8 * (1 + Math.exp(-i / 2e5)) * (1 + 0.05 * (rand() - 0.5)),
        iops: 1e5 * (1 + Math.exp(-i / 2e5)),
      };
      return JSON.stringify(point);
    });
  }
  await writeFile(
    join(dir, "run.json"),
    JSON.stringify({
      format: "benchspec-run/1",
      status: "complete",
      runId: "bench",
      specFile: "bench.yaml",
      specHash: plan.specHash,
      sets: [],
      start: "2026-01-01T00:00:00.000Z",
    }),
  );
}

/**
 * The plan of a spec with one fio workload whose matrix is `matrix` (cases: the product of its lists), and
 * the spec's text (a run directory keeps it as spec.yaml: merge reads it).
 */
export function fioMatrixPlan(name: string, matrix: Record<string, unknown[]>): Plan & { specText: string } {
  const specText = stringify({
    benchspec: 1,
    name,
    targets: { scratch: { kind: "fs" } },
    workloads: [{ name: "grid", engine: "fio", op: "randrw", matrix }],
  });
  const checked = validateText(`${name}.yaml`, specText);
  if (!checked.plan) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
  return { ...checked.plan, specText };
}
