import type { Case } from "../../plan/types.js";
import type { ShellScriptWriter } from "../../emit/writer.js";

/** The compiled script's curl data plane (curl.sh), shared by the engines that time requests through curl. */
export const CURL_SHELL = new URL("./curl.sh", import.meta.url);

/**
 * A sampled case's series in the script (bs_ops_series): its transfers stamped as they end, the series
 * computed as run computes it. Not for an autotuned case, whose records are its last round's.
 */
export function curlSeries(c: Case, w: ShellScriptWriter): void {
  if (c.params.sample !== undefined && !c.params.autotune)
    w.assign("BS_SAMPLE_MS", Math.max(1, Math.round(c.params.sample * 1000)));
}

export const curlSeriesGaps = (c: Case): string[] =>
  c.params.sample !== undefined && c.params.autotune
    ? [
        "its rows carry no time series when it is autotuned (the records are the last round's); run it with benchspec run",
      ]
    : [];
