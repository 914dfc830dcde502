/**
 * Clean-up after a run was interrupted has a bound of its own: Ctrl-C must end a run within seconds
 * whatever the storage does (a frozen server answers no DeleteObjects either). Every clean-up of a run
 * shares one deadline, INTERRUPTED_CLEANUP_MS after the interrupt; what it could not do by then is named.
 */

import { setMaxListeners } from "node:events";

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
    // Every clean-up of the run listens to it.
    setMaxListeners(0, deadline);
    deadlines.set(interrupt, deadline);
  }
  return deadline;
}

/**
 * The signal for a clean-up: aborted after timeoutMs, or at the interrupt's deadline if that comes first.
 * Its own timer holds it: an AbortSignal.timeout held only by AbortSignal.any can be collected as garbage
 * before it fires, and the clean-up would then wait unbounded.
 */
export function cleanupSignal(interrupt: AbortSignal, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(
    () => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError")),
    timeoutMs,
  ).unref();
  const deadline = afterInterrupt(interrupt);
  if (deadline.aborted) controller.abort(deadline.reason);
  else deadline.addEventListener("abort", () => controller.abort(deadline.reason), { once: true });
  return controller.signal;
}
