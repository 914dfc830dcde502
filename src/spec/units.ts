/**
 * Units of the spec language. Every value with a unit is normalized here, once:
 * sizes → bytes, rates → bytes per second, durations → seconds, percentages → percent (0–100).
 */

export type UnitKind = "size" | "rate" | "duration" | "percent";

const SIZE_UNITS: Record<string, number> = {
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  PiB: 2 ** 50,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  PB: 1e15,
};

const BIT_UNITS: Record<string, number> = {
  bit: 1 / 8,
  Kbit: 1e3 / 8,
  Mbit: 1e6 / 8,
  Gbit: 1e9 / 8,
  Tbit: 1e12 / 8,
};

const RATE_UNITS: Record<string, number> = {
  ...Object.fromEntries(Object.entries(SIZE_UNITS).map(([unit, factor]) => [`${unit}/s`, factor])),
  ...Object.fromEntries(Object.entries(BIT_UNITS).map(([unit, factor]) => [`${unit}/s`, factor])),
};

const DURATION_UNITS: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

const UNIT_TABLES: Record<Exclude<UnitKind, "percent">, Record<string, number>> = {
  size: SIZE_UNITS,
  rate: RATE_UNITS,
  duration: DURATION_UNITS,
};

export const UNIT_EXAMPLES: Record<UnitKind, string> = {
  size: "a size with a unit, e.g. 512B, 4KiB, 1MiB, 1GiB (binary) or 4KB, 1MB, 1GB (decimal)",
  rate: "a rate with a unit, e.g. 100MB/s, 1GiB/s or 25Gbit/s",
  duration: "a duration with a unit, e.g. 500ms, 30s, 5m or 1h",
  percent: "a percentage, e.g. 65 or 65%, between 0 and 100",
};

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;

function unitPattern(kind: Exclude<UnitKind, "percent">): RegExp {
  const units = Object.keys(UNIT_TABLES[kind])
    .sort((a, b) => b.length - a.length)
    .map((unit) => unit.replace("/", "\\/"));
  // At most one ASCII space: a tab or a no-break space (pasted from a document) is refused, as documented.
  return new RegExp(`^${NUMBER} ?(${units.join("|")})$`);
}

/** Patterns the JSON Schema publishes, so editors flag a bad unit as the user types. */
export const UNIT_PATTERNS = {
  size: unitPattern("size"),
  rate: unitPattern("rate"),
  duration: unitPattern("duration"),
  // A number (read: 65) or a string with "%" (read: 65%); a quoted "65" is rejected, as a quoted "4096" is for sizes.
  percent: new RegExp(`^${NUMBER} ?%$`),
} as const;

export type UnitResult =
  | { ok: true; value: number }
  /** `range`: the value is well-formed but outside the allowed range (a percentage above 100%). */
  | { ok: false; message: string; range?: true };

/** Parses a unit string of the given kind; numbers are accepted only for percentages. */
export function parseUnit(kind: UnitKind, input: string | number): UnitResult {
  if (typeof input === "number") {
    if (kind === "percent") return checkPercent(input, String(input));
    return { ok: false, message: `${input} has no unit; expected ${UNIT_EXAMPLES[kind]}` };
  }
  const text = input.trim();
  const match = UNIT_PATTERNS[kind].exec(text);
  if (!match)
    return { ok: false, message: `"${input}" is not ${UNIT_EXAMPLES[kind]}${unitHint(kind, text)}` };
  const amount = Number(match[1]);
  if (kind === "percent") return checkPercent(amount, text);
  const factor = UNIT_TABLES[kind][match[2]!] ?? Number.NaN;
  const value = amount * factor;
  // Decided on the decimal text, not the double: 1.0000000000000001KiB rounds to exactly 1024.0 as a double.
  if (kind === "size" && !wholeBytes(match[1]!, factor)) {
    return { ok: false, message: `"${input}" is not a whole number of bytes` };
  }
  if (!Number.isFinite(value) || value > Number.MAX_SAFE_INTEGER) {
    return { ok: false, message: `"${input}" is too large` };
  }
  return { ok: true, value };
}

/** The text parseUnit reads as exactly `value`: in the base unit (B, B/s, s), without an exponent. */
export function writeUnit(kind: UnitKind, value: number): string | number {
  if (kind === "percent") return value;
  const digits = String(value);
  // Below 1e-6 JavaScript writes an exponent, which the language does not read; toFixed(100) is exact enough.
  const plain = digits.includes("e") ? value.toFixed(100).replace(/\.?0+$/, "") : digits;
  return `${plain}${BASE_UNITS[kind]}`;
}
const BASE_UNITS = { size: "B", rate: "B/s", duration: "s" } as const;

/** Whether `amount` (decimal digits, maybe with a fraction) times the integer `factor` is a whole number. */
function wholeBytes(amount: string, factor: number): boolean {
  const [whole, fraction = ""] = amount.split(".");
  const scale = 10n ** BigInt(fraction.length);
  return (BigInt(`${whole}${fraction}`) * BigInt(factor)) % scale === 0n;
}

function checkPercent(value: number, written: string): UnitResult {
  if (!(value >= 0 && value <= 100))
    return { ok: false, message: `${written} is outside 0–100%`, range: true };
  return { ok: true, value };
}

/** A targeted hint for the usual mistakes: a bare SI prefix, lowercase units, "Gbps". */
function unitHint(kind: UnitKind, text: string): string {
  const [, amount = "", suffix = ""] = /^([\d.]+)\s?(.*)$/.exec(text) ?? [];
  if (kind === "percent" && !suffix && amount)
    return ` — a quoted number has no unit: write ${amount} (a bare number) or ${amount}%`;
  if (!suffix) return "";
  if (kind === "size" && /^[kmgtp]i?b?$/i.test(suffix)) {
    const prefix = suffix[0]!.toUpperCase();
    return ` — did you mean ${amount}${prefix}iB (binary) or ${amount}${prefix}B (decimal)?`;
  }
  if (kind === "rate" && /^[kmgt]?bps$/i.test(suffix)) {
    const prefix = suffix.length > 3 ? suffix[0]!.toUpperCase() : "";
    return ` — did you mean ${amount}${prefix}bit/s?`;
  }
  if (kind === "duration" && /^(sec|secs|seconds?|min|mins|minutes?|hours?|hr)$/i.test(suffix)) {
    return " — the units are us, ms, s, m, h";
  }
  return "";
}

/** Formats bytes the way a person writes them: the largest binary unit that divides exactly. */
export function formatSize(bytes: number): string {
  for (const unit of ["PiB", "TiB", "GiB", "MiB", "KiB"] as const) {
    const factor = SIZE_UNITS[unit]!;
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  for (const unit of ["PB", "TB", "GB", "MB", "KB"] as const) {
    const factor = SIZE_UNITS[unit]!;
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes}B`;
}

export function formatDuration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60}m`;
  if (Number.isInteger(seconds)) return `${seconds}s`;
  const ms = seconds * 1000;
  if (Number.isInteger(Math.round(ms * 1e6) / 1e6)) return `${Math.round(ms * 1e6) / 1e6}ms`;
  return `${Math.round(seconds * 1e12) / 1e6}us`;
}

export function formatRate(bytesPerSecond: number): string {
  for (const [unit, factor] of [
    ["GB/s", 1e9],
    ["MB/s", 1e6],
    ["KB/s", 1e3],
  ] as const) {
    if (bytesPerSecond >= factor) return `${Math.round((bytesPerSecond / factor) * 100) / 100}${unit}`;
  }
  return `${Math.round(bytesPerSecond * 100) / 100}B/s`;
}

/** Every unit token, for the expression language (`1GiB`, `25Gbit/s`, `30s` inside formulas). */
export function unitFactor(unit: string): number | undefined {
  return SIZE_UNITS[unit] ?? RATE_UNITS[unit] ?? DURATION_UNITS[unit];
}
