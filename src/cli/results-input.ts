/** What `report` and `compare` share: loading their inputs and reading their options, as CLI errors. */
import { loadInputs, ReportInputError } from "../report/load.js";
import { NdjsonError } from "../results/ndjson.js";
import { METRICS, type Metric } from "../spec/metrics.js";
import { CliError, EXIT } from "./context.js";

export async function loadRuns(inputs: readonly string[]) {
  try {
    return await loadInputs(inputs);
  } catch (error) {
    if (error instanceof ReportInputError || error instanceof NdjsonError)
      throw new CliError(error.message, EXIT.invalid);
    throw error;
  }
}

/** Runs an option parser; its error becomes a usage error (exit 2). */
export function parseOption<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.invalid);
  }
}

export function parseAlpha(text: string): number {
  const value = Number(text);
  if (!(value > 0 && value < 1)) throw new Error(`--alpha must be between 0 and 1, not "${text}"`);
  return value;
}

export function parseMetrics(text: string): Metric[] {
  const metrics = text
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);
  for (const metric of metrics) {
    if (!(METRICS as readonly string[]).includes(metric)) {
      throw new Error(`unknown metric "${metric}"; expected one of ${METRICS.join(", ")}`);
    }
  }
  if (metrics.length === 0) throw new Error("--metric needs at least one metric");
  return metrics as Metric[];
}
