import { describe, expect, it } from "vitest";
import {
  classShares,
  meanSize,
  normalCdf,
  normalQuantile,
  sizeAt,
  sizeClassOf,
  type SizeDistribution,
} from "../../src/rows/sizes.js";
import { wholePercents } from "../../src/engines/fio/jobfile.js";
import { z } from "zod";
import { paramShape } from "../../src/spec/schema.js";

const N = 20_000;
const draws = (d: SizeDistribution, n = N) => Array.from({ length: n }, (_, i) => sizeAt(d, i));

/** Pearson's χ² of observed counts against expected shares. */
function chiSquare(observed: readonly number[], shares: readonly number[]): number {
  const total = observed.reduce((a, b) => a + b, 0);
  return observed.reduce((sum, o, i) => sum + (o - total * shares[i]!) ** 2 / (total * shares[i]!), 0);
}

describe("sizes drawn from a distribution", () => {
  it("weighted buckets pass a χ² goodness-of-fit test and repeat exactly for a seed", () => {
    const d: SizeDistribution = {
      buckets: [
        { size: 4096, percent: 70 },
        { size: 2 ** 20, percent: 25 },
        { size: 64 * 2 ** 20, percent: 5 },
      ],
    };
    const sizes = draws(d);
    const counts = d.buckets.map((b) => sizes.filter((s) => s === b.size).length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(N);
    // 2 degrees of freedom: P(χ² > 13.82) = 0.001.
    expect(chiSquare(counts, [0.7, 0.25, 0.05])).toBeLessThan(13.82);
    expect(draws(d)).toEqual(sizes);
    const other = draws({ ...d, seed: 7 });
    expect(other).not.toEqual(sizes);
    expect(
      chiSquare(
        d.buckets.map((b) => other.filter((s) => s === b.size).length),
        [0.7, 0.25, 0.05],
      ),
    ).toBeLessThan(13.82);
    // A bucket's class is its own size.
    expect(sizeClassOf(d, 2 ** 20)).toBe(2 ** 20);
  });

  it("uniform sizes cover [min, max] evenly (χ² over 10 bins) with both ends drawn", () => {
    const d: SizeDistribution = { uniform: { min: 1000, max: 1999 }, seed: 3 };
    const sizes = draws(d);
    expect(Math.min(...sizes)).toBe(1000);
    expect(Math.max(...sizes)).toBe(1999);
    const bins = Array.from(
      { length: 10 },
      (_, b) => sizes.filter((s) => Math.floor((s - 1000) / 100) === b).length,
    );
    // 9 degrees of freedom: P(χ² > 27.88) = 0.001.
    expect(chiSquare(bins, Array(10).fill(0.1))).toBeLessThan(27.88);
    expect(Math.abs(sizes.reduce((a, b) => a + b, 0) / N - meanSize(d))).toBeLessThan(10);
    expect(sizeClassOf(d, 1500)).toBe(2048);
    expect(sizeClassOf(d, 1024)).toBe(1024);
    // The same for its seed, another for another seed.
    expect(draws(d)).toEqual(sizes);
    expect(draws({ ...d, seed: 4 })).not.toEqual(sizes);
  });

  it("lognormal sizes pass a Kolmogorov–Smirnov test against the truncated distribution; their mean is meanSize's", () => {
    const lognormal = { median: 2 ** 20, spread: 4, min: 4096, max: 64 * 2 ** 20 };
    const d: SizeDistribution = { lognormal };
    const sizes = draws(d).sort((a, b) => a - b);
    expect(sizes[0]!).toBeGreaterThanOrEqual(lognormal.min);
    expect(sizes[N - 1]!).toBeLessThanOrEqual(lognormal.max);
    const sigma = Math.log(lognormal.spread);
    const z = (x: number) => Math.log(x / lognormal.median) / sigma;
    const [low, high] = [normalCdf(z(lognormal.min)), normalCdf(z(lognormal.max))];
    const cdf = (x: number) => (normalCdf(z(x)) - low) / (high - low);
    let distance = 0;
    sizes.forEach((x, i) => {
      distance = Math.max(distance, Math.abs((i + 1) / N - cdf(x)), Math.abs(i / N - cdf(x)));
    });
    // P(D > 1.95/√n) ≈ 0.001.
    expect(distance).toBeLessThan(1.95 / Math.sqrt(N));
    // The median is the median (within the KS bound), and the mean is the truncated lognormal's.
    expect(Math.abs(cdf(sizes[N / 2]!) - 0.5)).toBeLessThan(0.02);
    const mean = sizes.reduce((a, b) => a + b, 0) / N;
    expect(Math.abs(mean / meanSize(d) - 1)).toBeLessThan(0.05);
    // The same for its seed (in draw order), another for another seed.
    expect(draws(d, 1000)).toEqual(draws(d, 1000));
    expect(draws({ ...d, seed: 9 }, 1000)).not.toEqual(draws(d, 1000));
  });

  it("the normal distribution's function and quantile invert each other", () => {
    for (const p of [1e-6, 0.01, 0.1, 0.5, 0.9, 0.99, 1 - 1e-6])
      expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
  });

  it("class shares (what fio's bssplit gets) add up to 1 and match the draws' classes", () => {
    const cases: SizeDistribution[] = [
      { uniform: { min: 3000, max: 70_000 } },
      { lognormal: { median: 65_536, spread: 3, min: 512, max: 8 * 2 ** 20 } },
    ];
    for (const d of cases) {
      const shares = classShares(d);
      expect(shares.reduce((sum, c) => sum + c.share, 0)).toBeCloseTo(1, 9);
      const sizes = draws(d);
      for (const { size, share } of shares) {
        const seen = sizes.filter((s) => sizeClassOf(d, s) === size).length / N;
        expect(Math.abs(seen - share)).toBeLessThan(0.015);
      }
      const percents = wholePercents(shares.map((c) => c.share));
      expect(percents.reduce((a, b) => a + b, 0)).toBe(100);
    }
  });

  it("a distribution travels to workers as written: encoded and decoded again, the same value", () => {
    const written = [
      { "4KiB": "70%", "1MiB": "30%" },
      { buckets: { "1MiB": 50, "2MiB": 50 }, seed: 4 },
      { uniform: ["1KiB", "2KiB"] },
      { lognormal: { median: "1MiB", spread: 4 }, seed: 1 },
    ];
    for (const input of written) {
      const value = paramShape.size.parse(input);
      expect(paramShape.size.parse(z.encode(paramShape.size, value))).toEqual(value);
    }
    expect(paramShape.size.parse({ lognormal: { median: "1MiB", spread: 2 } })).toEqual({
      lognormal: { median: 2 ** 20, spread: 2, min: 1, max: 8 * 2 ** 20 },
    });
  });
});
