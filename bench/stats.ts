/** Medians and number formatting for the bench table. */

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** Median of one field over a list of samples. */
export const medianOf = <T>(samples: readonly T[], field: (s: T) => number) => median(samples.map(field));

export function fmt(value: number | undefined, digits = 2): string {
  if (value === undefined || !Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs >= 1000) return value.toFixed(0);
  if (abs >= 100) return value.toFixed(Math.min(digits, 1));
  return value.toFixed(digits);
}

export const MB = 1e6;
