/**
 * How numbers and parameters read in a report: one display unit per chart axis (chosen from the largest
 * value) and parameter values as a person writes them (4KiB, 65%, 2s). What each metric is (title, unit
 * family, direction) is in rows/metrics.ts.
 */
import type { MetricFamily } from "../rows/metrics.js";
import { formatDuration, formatSize } from "../spec/units.js";

export interface DisplayUnit {
  unit: string;
  factor: number;
}

const THROUGHPUT_UNITS: DisplayUnit[] = [
  { unit: "GB/s", factor: 1e9 },
  { unit: "MB/s", factor: 1e6 },
  { unit: "kB/s", factor: 1e3 },
  { unit: "B/s", factor: 1 },
];
const IOPS_UNITS: DisplayUnit[] = [
  { unit: "M IOPS", factor: 1e6 },
  { unit: "k IOPS", factor: 1e3 },
  { unit: "IOPS", factor: 1 },
];
const TIME_UNITS: DisplayUnit[] = [
  { unit: "s", factor: 1 },
  { unit: "ms", factor: 1e-3 },
  { unit: "µs", factor: 1e-6 },
  { unit: "ns", factor: 1e-9 },
];

const UNITS: Record<MetricFamily, DisplayUnit[]> = {
  throughput: THROUGHPUT_UNITS,
  iops: IOPS_UNITS,
  time: TIME_UNITS,
};

/** The largest unit in which the largest value is at least 1 (so an axis reads 0…850 MB/s, not 0…0.85 GB/s). */
export function displayUnit(family: MetricFamily, values: Iterable<number>): DisplayUnit {
  let max = 0;
  for (const value of values) if (Number.isFinite(value) && Math.abs(value) > max) max = Math.abs(value);
  const units = UNITS[family];
  return units.find((u) => max >= u.factor) ?? units[units.length - 1]!;
}

/** One value with its own unit, three significant digits: "305.7 MB/s", "12.3k IOPS", "1.25 ms". */
export function formatMetric(family: MetricFamily, value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  const { unit, factor } = displayUnit(family, [value]);
  return `${formatNumber(value / factor)} ${unit}`;
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return "–";
  const abs = Math.abs(value);
  if (abs === 0) return "0";
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(1);
  if (abs >= 10) return value.toFixed(2);
  if (abs >= 1) return value.toFixed(3);
  return value.toPrecision(3);
}

export const formatPercent = (fraction: number | undefined, digits = 1) =>
  fraction === undefined || !Number.isFinite(fraction) ? "–" : `${(fraction * 100).toFixed(digits)}%`;

export const formatSignedPercent = (fraction: number, digits = 1) =>
  `${fraction >= 0 ? "+" : "−"}${Math.abs(fraction * 100).toFixed(digits)}%`;

const SIZE_PARAMS = new Set(["size", "bs"]);
const DURATION_PARAMS = new Set(["duration", "ramp", "sample"]);

/** A parameter value as the spec would write it. */
export function formatParam(name: string, value: unknown): string {
  if (value === undefined) return "–";
  if (typeof value === "number") {
    if (SIZE_PARAMS.has(name)) return formatSize(value);
    if (DURATION_PARAMS.has(name)) return formatDuration(value);
    if (name === "read") return `${value}%`;
    return String(value);
  }
  if (typeof value === "string" || typeof value === "boolean") return String(value);
  if (value === false || value === null) return String(value);
  return JSON.stringify(value);
}

/** Sorts parameter values: numbers numerically, everything else by its label. */
export function compareParamValues(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = typeof a === "string" ? a : JSON.stringify(a);
  const y = typeof b === "string" ? b : JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
