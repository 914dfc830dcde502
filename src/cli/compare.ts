import { Command } from "commander";
import { compareRuns, DEFAULT_COMPARE, parseThreshold, type Comparison } from "../results/compare.js";
import { BenchspecError } from "../platform/errors.js";
import { formatMetric, formatNumber, formatSignedPercent } from "../report/format.js";
import { loadInputs } from "../report/load.js";
import { METRIC_INFO } from "../results/metrics.js";
import { METRICS } from "../spec/metrics.js";
import { EXIT, type Io } from "./context.js";
import { parseAlpha, parseMetrics, parseOption } from "./results-input.js";
import { formatTable } from "./table.js";

interface CompareOptions {
  threshold: string;
  alpha: string;
  metric: string;
  json?: boolean;
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
"test": "mann-whitney" or "ci". A regression: significant and worse than the threshold.
Exit codes: 0 no regression, 1 a case regressed (or failed in the new run), 2 unreadable input.`,
    )
    .action(async (basePath: string, newPath: string, options: CompareOptions) => {
      const [base, next] = await loadInputs([basePath, newPath]);
      const comparison = compareRuns(base!, next!, {
        ...DEFAULT_COMPARE,
        threshold: parseOption(() => parseThreshold(options.threshold)),
        alpha: parseOption(() => parseAlpha(options.alpha)),
        metrics: parseOption(() => parseMetrics(options.metric)),
      });
      if (comparison.cases.length === 0)
        throw new BenchspecError(
          "invalid-input",
          `no case of ${base!.label} and ${next!.label} has the metrics to compare`,
        );
      io.stdout.write(
        options.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${renderComparison(comparison)}\n`,
      );
      setExit(comparison.regressions > 0 ? EXIT.failure : EXIT.ok);
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
  const summary = `${c.new} vs ${c.base}: ${c.regressions} regression${c.regressions === 1 ? "" : "s"}, ${c.improvements} improvement${c.improvements === 1 ? "" : "s"} (threshold ${(c.options.threshold * 100).toFixed(1)}%, alpha ${c.options.alpha})`;
  return `${table}\n\n${summary}`;
}
