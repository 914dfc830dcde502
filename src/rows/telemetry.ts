/**
 * Host telemetry as stored: one row of telemetry.ndjson per sample, rates over the `seconds` before `t`.
 * Units: fractions of all cores' time (cpu), bytes per second (net, disk), operations per second, a
 * fraction of the interval (a device's utilisation), CPU-seconds per second (a process's cpu: 1 = one core
 * busy), bytes (rss).
 */
import { z } from "zod";

const rate = z.number();

/** The name benchspec's own process (and its worker threads) goes by in a sample's `procs`. */
export const SELF = "benchspec";

export const TelemetrySampleSchema = z.object({
  /** Unix milliseconds at the end of the interval (a row's `t` counts from its repetition's start instead). */
  t: z.number(),
  seconds: z.number(),
  /** Shares of every core's time: user (with nice), system (with interrupts), waiting for I/O. */
  cpu: z.object({ user: rate, system: rate, iowait: rate }),
  /** Per network interface (loopback is `lo`): received and sent bytes per second. Idle ones are left out. */
  net: z.record(z.string(), z.object({ rx: rate, tx: rate })),
  /** Per whole block device: bytes and operations per second, and the share of time it had I/O in flight. */
  disk: z.record(
    z.string(),
    z.object({ read: rate, write: rate, readOps: rate, writeOps: rate, util: rate }),
  ),
  /**
   * Per process name, benchspec's own process (`benchspec`) and its descendants: CPU (cores), resident
   * memory, how many processes, and the busiest thread's share of the interval it was running or waiting
   * for a core (1 = a thread that never blocked: an event loop or a tool bound by its own CPU).
   */
  procs: z.record(
    z.string(),
    z.object({ cpu: rate, rss: z.number(), count: z.number().int(), busiestThread: rate }),
  ),
});
export type TelemetrySample = z.infer<typeof TelemetrySampleSchema>;

export const TelemetryRowSchema = TelemetrySampleSchema.extend({
  case: z.string(),
  repetition: z.number().int(),
  warmup: z.boolean(),
  /** Seconds since the repetition's start, at the end of the sample's interval (timeseries.ndjson's clock). */
  t: z.number(),
  /** The host sampled, in a case run on several hosts. */
  host: z.string().optional(),
});
export type TelemetryRow = z.infer<typeof TelemetryRowSchema>;

/** A resource's level over a repetition: its time-weighted mean and its highest sample. */
const level = z.object({ mean: z.number(), peak: z.number() });
export type Level = z.infer<typeof level>;

/**
 * A repetition's telemetry in a few figures (what a result row carries, and a case's summary over its
 * repetitions). Same units as the samples.
 */
export const TelemetrySummarySchema = z.object({
  seconds: z.number(),
  /** Shares of all cores: busy (user + system) and waiting for I/O. */
  cpu: z.object({ busy: level, iowait: level }),
  net: z.record(z.string(), z.object({ rx: level, tx: level })),
  disk: z.record(z.string(), z.object({ util: level, throughput: level, iops: level })),
  procs: z.record(z.string(), z.object({ cpu: level, busiestThread: level, rss: level })),
});
export type TelemetrySummary = z.infer<typeof TelemetrySummarySchema>;
