import { Command } from "commander";
import { resolve, sep } from "node:path";
import { BenchspecError } from "../platform/errors.js";
import { expandRunsDirs, loadInputs } from "../report/load.js";
import { compareRuns, DEFAULT_COMPARE, parseThreshold } from "../results/compare.js";
import { RUN_FILES } from "../results/run-dir.js";
import { latestRun, TREND_MIN_RUNS, trendOfRuns } from "../report/trend-runs.js";
import { checkOutputApart, EXIT, nonEmptyPath, VERSION, writeOutputFile, type Io } from "./context.js";
import { parseAlpha, parseMetrics, parseOption } from "./results-input.js";

interface ReportOptions {
  output: string;
  title?: string;
  compare?: boolean;
  threshold: string;
  alpha: string;
  metric: string;
  trend: boolean;
}

const RUN_FILE_NAMES: ReadonlySet<string> = new Set(Object.values(RUN_FILES).map((file) => file.name));

export function makeReportCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("report")
    .description("write one self-contained HTML report (charts and tables) from runs or result files")
    .argument(
      "<inputs...>",
      "run directories, results.ndjson files (benchspec's or a compiled script's), or fio JSON outputs",
    )
    .option("-o, --output <file>", "the HTML file to write", "report.html")
    .option("--title <text>", "the report's title (default: the spec's report.title or name)")
    .option("--compare", "the two inputs are a base and a new run: add their comparison")
    .option(
      "--no-trend",
      `${TREND_MIN_RUNS} or more runs of one spec: side by side, not over time with the latest run in full`,
    )
    .option("--threshold <percent>", "with --compare or a trend: change that counts as a regression", "5%")
    .option("--alpha <p>", "with --compare or a trend: significance level of the Mann-Whitney test", "0.05")
    .option(
      "--metric <list>",
      "with --compare or a trend: metrics to compare (throughput, iops, latency, p50…p99.9, seconds)",
      "throughput",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec report runs/2026-11-22T07-58-01-quickstart -o quickstart.html
  $ benchspec report runs/a runs/b -o shared.html                   # two runs: one grouped chart
  $ benchspec report runs/ -o trend.html        # runs of one spec over time, regressions marked, the latest in full
  $ benchspec report out.ndjson                                     # what ./benchspec.sh printed
  $ benchspec report fio-run1.json fio-run2.json                    # fio's own JSON output, two repetitions
  $ benchspec report --compare runs/base runs/new -o compare.html

The page needs no network: the chart libraries and data are inside it, and every chart is also an image.`,
    )
    .action(async (given: string[], options: ReportOptions) => {
      const file = resolve(nonEmptyPath("-o", options.output));
      const inputs = await expandRunsDirs(given);
      // Into a run directory given as input it may go (its own report.html, a new name), never over what is read.
      checkOutputApart("-o", file, inputs, (inside) => {
        const first = inside.split(sep)[0]!;
        return first === RUN_FILES.report.name || !RUN_FILE_NAMES.has(first);
      });
      if (options.compare && inputs.length !== 2)
        throw new BenchspecError("usage", "--compare needs exactly two inputs: the base and the new run");
      const runs = await loadInputs(inputs);
      const rule = {
        ...DEFAULT_COMPARE,
        threshold: parseOption(() => parseThreshold(options.threshold)),
        alpha: parseOption(() => parseAlpha(options.alpha)),
        metrics: parseOption(() => parseMetrics(options.metric)),
      };
      const comparison = options.compare ? compareRuns(runs[0]!, runs[1]!, rule) : undefined;
      const trend = !options.compare && options.trend ? trendOfRuns(runs, rule) : undefined;
      // Loaded on use: the charting libraries take a while to import, and other commands never need them.
      const { buildReport } = await import("../report/index.js");
      const latest = trend && latestRun(runs, trend);
      const { html } = await buildReport(latest ? [latest] : runs, {
        version: VERSION,
        ...(options.title && { title: options.title }),
        ...(comparison && { comparison }),
        ...(trend && { trend }),
      });
      await writeOutputFile("-o", file, html);
      io.stdout.write(`${file}\n`);
      setExit(EXIT.ok);
    });
}
