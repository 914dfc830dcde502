import type { Case } from "../../plan/types.js";
import type { ShellScriptWriter } from "../../emit/writer.js";
import { isSizeDistribution } from "../../rows/sizes.js";

/** The compiled script's curl data plane (curl.sh), shared by the engines that time requests through curl. */
export const CURL_SHELL = new URL("./curl.sh", import.meta.url);

/**
 * A sampled case's series in the script (bs_ops_series): its transfers stamped as they end, the series
 * computed as run computes it; an autotuned case's from its knee round's records, as run's.
 */
export function curlSeries(c: Case, w: ShellScriptWriter): void {
  if (c.params.sample !== undefined)
    w.assign("BS_SAMPLE_MS", Math.max(1, Math.round(c.params.sample * 1000)));
}

/** Object sizes drawn per object are not drawn by the script's bash (their sdk call sequences carry them). */
export const DRAWN_SIZE_GAP =
  "its object sizes drawn from a distribution are not run: its case fails; run it with benchspec run (or its sdk call sequence)";

export const drawnSizeGaps = (c: Case): string[] =>
  isSizeDistribution(c.params.size) ? [DRAWN_SIZE_GAP] : [];
