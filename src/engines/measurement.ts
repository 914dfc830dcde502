import type { ErrorCode } from "../platform/errors.js";
import { redactUrls } from "../platform/redact.js";
import type { Measurement } from "./types.js";

/** A repetition that failed: no bytes are counted, the error says why (and its code, what failed). */
export function failedMeasurement(
  start: number,
  end: number,
  error: string,
  errorCode?: ErrorCode,
): Measurement {
  return {
    ok: false,
    // Rows are stored and shown: a URL in a tool's or library's message loses its credentials.
    error: redactUrls(error),
    ...(errorCode && { errorCode }),
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    bytes: 0,
    ops: 0,
    seconds: (end - start) / 1000,
    throughput: 0,
    iops: 0,
  };
}

/** The last few non-empty lines of a tool's output, for an error message. */
export function outputTail(text: string, lines = 3): string {
  return text
    .trim()
    .split("\n")
    .filter((line) => line.trim())
    .slice(-lines)
    .join(" | ");
}
