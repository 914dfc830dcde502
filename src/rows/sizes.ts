/**
 * Object and block sizes drawn from a distribution (docs/language.md, "Sizes from a distribution"): the
 * size of operation `index` is a function of the distribution, its seed and the index alone, so every run,
 * host and thread of a spec draws the same sizes and a GET of object i expects what the PUT of object i
 * wrote. Each size falls in a size class, the key of a row's `bySize`.
 */
import { erfc, maxOf } from "./stats.js";

export type SizeDistribution =
  | { uniform: { min: number; max: number }; seed?: number }
  | { lognormal: { median: number; spread: number; min: number; max: number }; seed?: number }
  | { buckets: { size: number; percent: number }[]; seed?: number };

export const isSizeDistribution = (value: unknown): value is SizeDistribution =>
  typeof value === "object" &&
  value !== null &&
  ("uniform" in value || "lognormal" in value || "buckets" in value);

/** A size given as one value or drawn per operation. */
export type SizeParam = number | SizeDistribution;

/** A size the rules keep from being drawn (dd's bs, fio's file size): a drawn one here is a broken plan. */
export function oneSize(size: SizeParam): number {
  if (typeof size !== "number") throw new Error("a size drawn from a distribution where one value is needed");
  return size;
}

/** A uniform number in [0, 1) for (seed, index < 2^32): a 32-bit mix of both (murmur3's finalizer, twice). */
export function unitDraw(seed: number, index: number): number {
  const h = fmix32(fmix32(Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ (index >>> 0)));
  return (h >>> 0) / 2 ** 32;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The size of operation `index`: the value itself, or the distribution's draw for its seed and index. */
export function sizeAt(size: SizeParam, index: number): number {
  if (typeof size === "number") return size;
  const u = unitDraw(size.seed ?? 0, index);
  if ("uniform" in size) {
    const { min, max } = size.uniform;
    return min + Math.floor(u * (max - min + 1));
  }
  if ("lognormal" in size) {
    // Truncated to [min, max]: u is spread over the normal's mass between their z-scores, so no size is
    // clamped onto a bound (which would pile operations up at the bounds).
    const { median, spread, min, max } = size.lognormal;
    const sigma = Math.log(spread);
    const low = normalCdf(Math.log(min / median) / sigma);
    const high = normalCdf(Math.log(max / median) / sigma);
    const z = normalQuantile(low + u * (high - low));
    return Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * z))));
  }
  let cumulative = 0;
  for (const bucket of size.buckets) {
    cumulative += bucket.percent / 100;
    if (u < cumulative) return bucket.size;
  }
  return size.buckets[size.buckets.length - 1]!.size;
}

/**
 * The class a size is counted in: a bucket's own size for weighted buckets, otherwise the power of two at or
 * above it (the class of 2^k holds the sizes in (2^(k-1), 2^k]).
 */
export function sizeClassOf(size: SizeParam, drawn: number): number {
  if (typeof size === "object" && "buckets" in size) return drawn;
  return 2 ** Math.ceil(Math.log2(Math.max(1, drawn)));
}

/** The largest size the distribution draws. */
export function largestSize(size: SizeParam): number {
  if (typeof size === "number") return size;
  if ("uniform" in size) return size.uniform.max;
  if ("lognormal" in size) return size.lognormal.max;
  return maxOf(size.buckets.map((b) => b.size));
}

/** The mean size (what turns a rate in bytes/s into operations/s). */
export function meanSize(size: SizeParam): number {
  if (typeof size === "number") return size;
  if ("uniform" in size) return (size.uniform.min + size.uniform.max) / 2;
  if ("buckets" in size) return size.buckets.reduce((sum, b) => sum + (b.size * b.percent) / 100, 0);
  // The truncated lognormal's mean: median·e^(σ²/2)·(Φ(b−σ) − Φ(a−σ)) / (Φ(b) − Φ(a)), a and b the bounds' z-scores.
  const { median, spread, min, max } = size.lognormal;
  const sigma = Math.log(spread);
  const a = Math.log(min / median) / sigma;
  const b = Math.log(max / median) / sigma;
  return (
    (median * Math.exp((sigma * sigma) / 2) * (normalCdf(b - sigma) - normalCdf(a - sigma))) /
    (normalCdf(b) - normalCdf(a))
  );
}

/**
 * The share of draws in each size class (for fio's bssplit, which draws from shares of block sizes): the
 * buckets as they are, a uniform or lognormal distribution as its power-of-two classes.
 */
export function classShares(size: SizeDistribution): { size: number; share: number }[] {
  if ("buckets" in size) return size.buckets.map((b) => ({ size: b.size, share: b.percent / 100 }));
  const [min, max] =
    "uniform" in size ? [size.uniform.min, size.uniform.max] : [size.lognormal.min, size.lognormal.max];
  const cdf =
    "uniform" in size
      ? (x: number) => Math.min(1, Math.max(0, (Math.floor(x) - min + 1) / (max - min + 1)))
      : lognormalCdf(size.lognormal);
  const shares: { size: number; share: number }[] = [];
  for (let upper = sizeClassOf(size, min); ; upper *= 2) {
    const share = cdf(Math.min(upper, max)) - cdf(Math.max(upper / 2, min - 1));
    if (share > 0) shares.push({ size: upper, share });
    if (upper >= max) break;
  }
  return shares;
}

function lognormalCdf(d: { median: number; spread: number; min: number; max: number }) {
  const sigma = Math.log(d.spread);
  const z = (x: number) => Math.log(Math.max(x, Number.MIN_VALUE) / d.median) / sigma;
  const low = normalCdf(z(d.min));
  const high = normalCdf(z(d.max));
  // Sizes are whole bytes: x stands for the draws rounded to at most x (below x + 0.5).
  return (x: number) =>
    x < d.min ? 0 : x >= d.max ? 1 : (normalCdf(z(Math.floor(x) + 0.5)) - low) / (high - low);
}

/** Φ, the standard normal's distribution function. */
export const normalCdf = (z: number): number => 0.5 * erfc(-z / Math.SQRT2);

/** Φ⁻¹ (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
