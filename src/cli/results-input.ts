/** What `report` and `compare` share: reading their options, as usage errors. */
import { BenchspecError } from "../platform/errors.js";
import { METRICS, type Metric } from "../rows/metric-names.js";

/** Runs an option parser; its error becomes a usage error (exit 2). */
export function parseOption<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new BenchspecError("usage", (error as Error).message, { cause: error });
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
