/** The report's per-case summary as CSV: every figure of every case, as the run model decided it. */
import { METRICS } from "../rows/metric-names.js";
import { csvCell } from "./escape.js";
import { formatParam } from "./format.js";
import type { CaseFigures, RunData } from "./model.js";
import { extraColumns } from "./tables.js";

export function summaryCsv(runs: readonly RunData[]): string {
  const paramNames = [...new Set(runs.flatMap((r) => r.cases.flatMap((c) => Object.keys(c.params))))]
    .filter((k) => !["autotune", "steady", "precondition"].includes(k))
    .sort();
  const extra = extraColumns(runs.flatMap((r) => r.cases));
  const extraCells: { title: string; value: (c: CaseFigures) => number | undefined }[] = [
    ...(extra.ttfbP50 ? [{ title: "ttfb.p50.median", value: (c: CaseFigures) => c.ttfb?.p50 }] : []),
    ...(extra.ttfbP99 ? [{ title: "ttfb.p99.median", value: (c: CaseFigures) => c.ttfb?.p99 }] : []),
    ...(extra.cpu
      ? [{ title: "client.cpuPerGiB.median", value: (c: CaseFigures) => c.client?.cpuPerGiB }]
      : []),
    ...(extra.elu
      ? [
          {
            title: "client.eventLoopUtilization.median",
            value: (c: CaseFigures) => c.client?.eventLoopUtilization,
          },
        ]
      : []),
  ];
  const header = [
    "run",
    "spec",
    "case",
    "workload",
    "target",
    "engine",
    "op",
    ...paramNames.map((p) => `param.${p}`),
    "repetitions",
    "failed",
    ...METRICS.flatMap((m) => [
      `${m}.n`,
      `${m}.median`,
      `${m}.mean`,
      `${m}.ci95_low`,
      `${m}.ci95_high`,
      `${m}.cv`,
    ]),
    ...extraCells.map((x) => x.title),
    "warnings",
  ];
  const lines = [header.map(csvCell).join(",")];
  for (const run of runs) {
    for (const c of run.cases) {
      const cells: unknown[] = [
        run.label,
        run.plan.name,
        c.id,
        c.workload,
        c.target,
        c.engine,
        c.op,
        ...paramNames.map((p) =>
          c.params[p] === undefined
            ? ""
            : typeof c.params[p] === "object"
              ? formatParam(p, c.params[p])
              : c.params[p],
        ),
        c.repetitions,
        c.failed,
        ...METRICS.flatMap((m): unknown[] => {
          const s = c.metrics[m];
          return s ? [s.n, s.median, s.mean, s.ci95?.[0], s.ci95?.[1], s.cv] : ["", "", "", "", "", ""];
        }),
        ...extraCells.map((x) => x.value(c) ?? ""),
        [...c.warnings, ...c.errors].join("; "),
      ];
      lines.push(cells.map(csvCell).join(","));
    }
  }
  return `${lines.join("\n")}\n`;
}
