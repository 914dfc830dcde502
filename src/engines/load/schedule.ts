/**
 * An open loop's schedule: when operation n of a load is due, as an offset from the load's start. Constant
 * arrivals are evenly spaced (n ÷ rate); Poisson arrivals have exponential gaps of mean 1 ÷ rate drawn from
 * a generator seeded by the case, so every run of a spec asks for the same instants. Workers in several
 * threads each keep their own cursor over the same sequence (operation numbers only grow within a thread).
 */
import { createHash } from "node:crypto";

export interface LoadSchedule {
  opsPerSecond: number;
  arrivals: "constant" | "poisson";
  seed: string;
  /** Constant arrivals: milliseconds before operation 0 is due (a host's place among the group's). */
  phase?: number;
}

/**
 * One host's share of a group's schedule, all hosts starting together: with constant arrivals host k of N
 * takes every N-th instant from the k-th (together, the group's instants exactly); with Poisson arrivals
 * each host draws its own stream at rate ÷ N (together, a Poisson process at the rate).
 */
export function hostSchedule(schedule: LoadSchedule, share: { index: number; count: number }): LoadSchedule {
  if (share.count <= 1) return schedule;
  return {
    ...schedule,
    opsPerSecond: schedule.opsPerSecond / share.count,
    ...(schedule.arrivals === "constant"
      ? { phase: (share.index * 1000) / schedule.opsPerSecond }
      : { seed: `${schedule.seed}/host-${share.index}` }),
  };
}

/** Milliseconds from the load's start at which operation n (0-based) is due; n grows call after call. */
export type DueOffset = (n: number) => number;

export function dueOffsets(schedule: LoadSchedule): DueOffset {
  const interval = 1000 / schedule.opsPerSecond;
  const phase = schedule.phase ?? 0;
  if (schedule.arrivals === "constant") return (n) => phase + n * interval;
  const seed = createHash("sha256").update(schedule.seed).digest();
  const start = sfc32(
    seed.readUInt32LE(0),
    seed.readUInt32LE(4),
    seed.readUInt32LE(8),
    seed.readUInt32LE(12),
  );
  let random = start.clone();
  let at = -1;
  let offset = 0;
  return (n) => {
    if (n < at) {
      // An earlier operation than the last asked: walk the sequence again from its start.
      random = start.clone();
      at = -1;
      offset = 0;
    }
    // The first operation is due at its first gap, like every later one after the one before.
    for (; at < n; at++) offset += -Math.log(1 - random.next()) * interval;
    return offset;
  };
}

/** A small, fast generator with a 128-bit state (Chris Doty-Humphrey's sfc32); next() is uniform in [0, 1). */
function sfc32(a0: number, b0: number, c0: number, d0: number) {
  let [a, b, c, d] = [a0 >>> 0, b0 >>> 0, c0 >>> 0, d0 >>> 0];
  const generator = {
    next(): number {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = ((c << 21) | (c >>> 11)) >>> 0;
      c = (c + t) >>> 0;
      return t / 2 ** 32;
    },
    clone: () => sfc32(a, b, c, d),
  };
  return generator;
}
