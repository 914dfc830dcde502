import { Command } from "commander";
import { compareInputs, DEFAULT_COMPARE, parseThreshold, type Comparison } from "../results/compare.js";
import { BenchspecError } from "../platform/errors.js";
import { formatMetric, formatNumber, formatSignedPercent } from "../report/format.js";
import { labelRuns, loadInput, type LoadedRun } from "../report/load.js";
import { METRIC_INFO } from "../rows/metrics.js";
import { METRICS } from "../rows/metric-names.js";
import { EXIT, type Io } from "./context.js";
import { parseAlpha, parseMetrics, parseOption } from "./results-input.js";
import { formatTable } from "./table.js";

interface CompareOptions {
  threshold: string;
  alpha: string;
  metric: string;
  json?: boolean;
  allowMissing?: boolean;
  allowSpecChange?: boolean;
}

export function makeCompareCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("compare")
    .description("compare two runs case by case; exit 1 when a case regresses beyond the threshold")
    .argument("<base>", "the base run (run directory, results.ndjson or fio JSON)")
    .argument("<new>", "the new run")
    .option(
      "--threshold <percent>",
      "change that counts as a regression (throughput/IOPS down, latency up)",
      "5%",
    )
    .option(
      "--alpha <p>",
      "significance level (of the Mann-Whitney U test, or 1 - the level of the CI that decides instead)",
      "0.05",
    )
    .option("--metric <list>", `comma-separated metrics: ${METRICS.join(", ")}`, "throughput")
    .option("--json", "print the comparison as JSON")
    .option("--allow-missing", "cases of the base missing from the new run do not fail the gate")
    .option("--allow-spec-change", "compare runs of different specs (name or hash) instead of refusing")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec compare runs/base runs/new
  $ benchspec compare runs/base runs/new --threshold 10% --metric throughput,p99 --json

Per case: the change in median with a 95% bootstrap confidence interval and a Mann-Whitney U test;
"~" after the change means it is not significant. With too few repetitions for the Mann-Whitney test
ever to reach alpha (3 vs 3 cannot reach p < 0.05), the confidence interval decides instead: the change
is significant when its (1 - alpha) interval excludes 0; the verdict notes this, and --json gives
"test": "mann-whitney" or "ci". Fewer than 3 repetitions on a side decide nothing: "too few
repetitions", never a regression. A regression: significant and worse than the threshold.
Refused (exit 2): an empty, truncated or damaged results file (a line that is not a result row), rows
of another spec (unless --allow-spec-change), of another source (benchspec run vs the compiled script)
or of another engine for a case, no case in common. Runs from different hosts are compared, with a
warning.
Exit codes: 0 the gate passes, 1 a case regressed, failed in the new run or is missing from it (unless
--allow-missing), 2 unreadable or incomparable input.`,
    )
    .action(async (basePath: string, newPath: string, options: CompareOptions) => {
      const settings = {
        ...DEFAULT_COMPARE,
        threshold: parseOption(() => parseThreshold(options.threshold)),
        alpha: parseOption(() => parseAlpha(options.alpha)),
        metrics: parseOption(() => parseMetrics(options.metric)),
        allowMissing: options.allowMissing === true,
        allowSpecChange: options.allowSpecChange === true,
      };
      // Each on its own (two fio JSON files are two runs here, not repetitions of one import), both at
      // once: one's parsing overlaps the other's single-threaded parts. The base's error is the one told.
      const loads = await Promise.allSettled([
        loadInput(basePath, { strict: true, series: false, together: 2 }),
        loadInput(newPath, { strict: true, series: false, together: 2 }),
      ]);
      for (const load of loads) if (load.status === "rejected") throw load.reason;
      const [base, next] = labelRuns(loads.map((load) => (load as PromiseFulfilledResult<LoadedRun>).value));
      const comparison = compareInputs(base!, next!, settings);
      if (comparison.cases.length === 0)
        throw new BenchspecError(
          "invalid-input",
          `no case of ${base!.label} and ${next!.label} has the metrics to compare`,
        );
      io.stdout.write(
        options.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${renderComparison(comparison)}\n`,
      );
      setExit(comparison.pass ? EXIT.ok : EXIT.failure);
    });
}

export function renderComparison(c: Comparison): string {
  const rows = c.cases.map((x) => {
    const { family } = METRIC_INFO[x.metric];
    return [
      x.case,
      x.metric,
      x.base ? formatMetric(family, x.base.median) : "–",
      x.new ? formatMetric(family, x.new.median) : "–",
      x.change === undefined ? "–" : `${formatSignedPercent(x.change)}${x.significant ? "" : " (~)"}`,
      x.ci95 ? `[${formatSignedPercent(x.ci95[0])}, ${formatSignedPercent(x.ci95[1])}]` : "–",
      x.p !== undefined ? formatNumber(x.p) : "–",
      `${x.verdict}${x.note ? ` (${x.note})` : ""}`,
    ];
  });
  const table = formatTable(["case", "metric", "base", "new", "change", "95% CI", "p", "verdict"], rows);
  const counts = [
    plural(c.regressions, "regression"),
    plural(c.improvements, "improvement"),
    ...(c.tooFew > 0 ? [`${plural(c.tooFew, "comparison")} with too few repetitions to decide`] : []),
    ...(c.missing.length > 0
      ? [
          `${plural(c.missing.length, "case")} of the base missing from the new run${c.options.allowMissing ? " (allowed)" : ""}`,
        ]
      : []),
  ];
  const summary = `${c.new} vs ${c.base}: ${counts.join(", ")} (threshold ${(c.options.threshold * 100).toFixed(1)}%, alpha ${c.options.alpha}): ${c.pass ? "passes" : "fails"}`;
  const warnings = c.warnings.map((w) => `warning: ${w}\n`).join("");
  return `${table}\n\n${warnings}${summary}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
