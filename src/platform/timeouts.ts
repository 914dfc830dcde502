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

/**
 * How long a target's setup check (an S3 HeadBucket, an IPFS node's version) may take: a healthy server
 * answers within milliseconds; one that accepts and never answers (frozen, or not that kind of server) is
 * given up on after this, once per run, not once per case.
 */
export const SETUP_CHECK_MS = Number(process.env.BENCHSPEC_SETUP_CHECK_MS) || 10_000;

/**
 * How long an IPFS add in flight at Ctrl-C on a node benchspec did not launch may take to end by itself,
 * within the run's clean-up time after the interrupt (cleanup-bound.ts). BENCHSPEC_ADD_GRACE_MS sets it
 * (the tests cut adds off with 0).
 */
export const ADD_GRACE_MS = Number(process.env.BENCHSPEC_ADD_GRACE_MS ?? 3_000);

/** A setup check given up on after SETUP_CHECK_MS: its message says so, the server's own error is its cause. */
export class SetupTimeout extends Error {
  override name = "SetupTimeout";
}

/**
 * Runs one setup check with a signal that aborts at the run's interrupt or after SETUP_CHECK_MS, whichever
 * comes first. (Not AbortSignal.timeout: a timeout signal held only by AbortSignal.any can be collected as
 * garbage before it fires, and the check then waits on the server's own timeouts.)
 */
export async function setupCheck<T>(
  interrupt: AbortSignal,
  check: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), SETUP_CHECK_MS);
  const onInterrupt = () => controller.abort(interrupt.reason);
  interrupt.addEventListener("abort", onInterrupt, { once: true });
  if (interrupt.aborted) onInterrupt();
  try {
    return await check(controller.signal);
  } catch (error) {
    if (controller.signal.aborted && !interrupt.aborted)
      throw new SetupTimeout(
        `no answer within ${SETUP_CHECK_MS / 1000} s: the server accepts connections but does not respond (frozen, overloaded, or not that kind of server)`,
        { cause: error },
      );
    throw error;
  } finally {
    clearTimeout(timer);
    interrupt.removeEventListener("abort", onInterrupt);
  }
}
