import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatDuration, formatSize, parseUnit, writeUnit } from "../../src/spec/units.js";

const ok = (kind: Parameters<typeof parseUnit>[0], input: string | number) => {
  const result = parseUnit(kind, input);
  if (!result.ok) throw new Error(result.message);
  return result.value;
};
const error = (kind: Parameters<typeof parseUnit>[0], input: string | number) => {
  const result = parseUnit(kind, input);
  if (result.ok) throw new Error(`expected ${input} to be rejected`);
  return result.message;
};

describe("units", () => {
  it("parses binary and decimal sizes to bytes", () => {
    expect(ok("size", "512B")).toBe(512);
    expect(ok("size", "4KiB")).toBe(4096);
    expect(ok("size", "1MiB")).toBe(1048576);
    expect(ok("size", "1GiB")).toBe(2 ** 30);
    expect(ok("size", "4KB")).toBe(4000);
    expect(ok("size", "1.5GB")).toBe(1.5e9);
    expect(ok("size", "10 MiB")).toBe(10 * 2 ** 20);
  });

  it("rejects sizes without units, fractional bytes and ambiguous prefixes", () => {
    expect(error("size", 4096)).toMatch(/no unit/);
    expect(error("size", "4K")).toMatch(/did you mean 4KiB \(binary\) or 4KB \(decimal\)/);
    expect(error("size", "4kib")).toMatch(/did you mean/);
    expect(error("size", "1.5B")).toMatch(/whole number of bytes/);
    expect(error("size", "99999999999PiB")).toMatch(/too large/);
  });

  it("decides whole bytes on the written decimal, not on its nearest double", () => {
    // As a double, 1.0000000000000001 is exactly 1: the size would silently be 1024 B.
    expect(error("size", "1.0000000000000001KiB")).toMatch(/whole number of bytes/);
    expect(error("size", "0.0000000001GB")).toMatch(/whole number of bytes/);
    expect(ok("size", "1.25KiB")).toBe(1280);
    expect(ok("size", "0.001KB")).toBe(1);
  });

  it("parses byte and bit rates to bytes per second", () => {
    expect(ok("rate", "100MB/s")).toBe(100e6);
    expect(ok("rate", "25Gbit/s")).toBe(25e9 / 8);
    expect(ok("rate", "1GiB/s")).toBe(2 ** 30);
    expect(error("rate", "10Gbps")).toMatch(/did you mean 10Gbit\/s/);
    expect(error("rate", "100MB")).toMatch(/rate with a unit/);
  });

  it("parses durations to seconds", () => {
    expect(ok("duration", "500ms")).toBe(0.5);
    expect(ok("duration", "30s")).toBe(30);
    expect(ok("duration", "5m")).toBe(300);
    expect(ok("duration", "1h")).toBe(3600);
    expect(error("duration", 30)).toMatch(/no unit/);
    expect(error("duration", "5 sec")).toMatch(/us, ms, s, m, h/);
  });

  it("accepts percentages as numbers or with %, within 0–100", () => {
    expect(ok("percent", 65)).toBe(65);
    expect(ok("percent", "2.5%")).toBe(2.5);
    expect(error("percent", 150)).toMatch(/^150 is outside 0–100%$/);
    expect(error("percent", "150%")).toMatch(/^150% is outside 0–100%$/);
    expect(parseUnit("percent", 150)).toMatchObject({ ok: false, range: true });
  });

  it("rejects a quoted number without % for a percentage, as for sizes", () => {
    expect(error("percent", "65")).toMatch(/write 65 \(a bare number\) or 65%/);
    expect(parseUnit("percent", "65")).not.toHaveProperty("range");
    expect(error("size", "4096")).toMatch(/size with a unit/);
  });

  it("formats values back the way people write them", () => {
    expect(formatSize(4096)).toBe("4KiB");
    expect(formatSize(10 * 2 ** 20)).toBe("10MiB");
    expect(formatSize(5e6)).toBe("5MB");
    expect(formatSize(1000 + 1)).toBe("1001B");
    expect(formatDuration(0.5)).toBe("500ms");
    expect(formatDuration(300)).toBe("5m");
    expect(formatDuration(90)).toBe("90s");
  });
});

describe("the space between a number and its unit", () => {
  it("is at most one ASCII space: a tab or a no-break space is refused, as documented", () => {
    expect(parseUnit("size", "4 KiB")).toEqual({ ok: true, value: 4096 });
    expect(parseUnit("rate", "10 MB/s")).toEqual({ ok: true, value: 1e7 });
    expect(parseUnit("percent", "65 %")).toEqual({ ok: true, value: 65 });
    for (const text of ["4\tKiB", "4\u00a0KiB", "4  KiB"])
      expect(parseUnit("size", text).ok, JSON.stringify(text)).toBe(false);
    expect(parseUnit("percent", "65\u00a0%").ok).toBe(false);
  });
});

describe("writeUnit", () => {
  it("writes every value a unit can have as text parseUnit reads back exactly", () => {
    const kinds = ["size", "rate", "duration", "percent"] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.oneof(
          fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          fc.double({ min: 1e-9, max: 1e7, noNaN: true }),
        ),
        (kind, raw) => {
          const value = kind === "size" ? Math.round(raw) : kind === "percent" ? raw % 100 : raw;
          expect(parseUnit(kind, writeUnit(kind, value))).toEqual({ ok: true, value });
        },
      ),
    );
  });
});
