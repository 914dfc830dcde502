/**
 * Clean-up after a run was interrupted has a bound of its own: Ctrl-C must end a run within seconds
 * whatever the storage does (a frozen server answers no DeleteObjects either). Every clean-up of a run
 * shares one deadline, INTERRUPTED_CLEANUP_MS after the interrupt; what it could not do by then is named.
 */

export const INTERRUPTED_CLEANUP_MS = 5_000;

/** Per run signal: the signal that aborts INTERRUPTED_CLEANUP_MS after it (one timer per run, not per call). */
const deadlines = new WeakMap<AbortSignal, AbortSignal>();

function afterInterrupt(interrupt: AbortSignal): AbortSignal {
  let deadline = deadlines.get(interrupt);
  if (!deadline) {
    const controller = new AbortController();
    const start = () => {
      setTimeout(
        () => controller.abort(new Error(`given up ${INTERRUPTED_CLEANUP_MS / 1000} s after the interrupt`)),
        INTERRUPTED_CLEANUP_MS,
      ).unref();
    };
    if (interrupt.aborted) start();
    else interrupt.addEventListener("abort", start, { once: true });
    deadline = controller.signal;
    deadlines.set(interrupt, deadline);
  }
  return deadline;
}

/** The signal for a clean-up: aborted after timeoutMs, or at the interrupt's deadline if that comes first. */
export const cleanupSignal = (interrupt: AbortSignal, timeoutMs: number): AbortSignal =>
  AbortSignal.any([AbortSignal.timeout(timeoutMs), afterInterrupt(interrupt)]);
