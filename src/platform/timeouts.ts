/** How long benchspec waits on a storage server's network before calling it dead. */

export interface NetworkTimeouts {
  connectTimeoutMs: number;
  /** No bytes either way for this long fails the request: a dead server cannot hang a run. */
  idleTimeoutMs: number;
}

/**
 * The engines' limits (also given to the SDK's handler): a healthy store answers and streams within
 * seconds; a minute without a byte either way is a dead one. BENCHSPEC_IDLE_TIMEOUT_MS shortens it (the
 * tests freeze a server and should not wait a minute).
 */
export const NETWORK_TIMEOUTS: NetworkTimeouts = {
  connectTimeoutMs: 10_000,
  idleTimeoutMs: Number(process.env.BENCHSPEC_IDLE_TIMEOUT_MS) || 60_000,
};
