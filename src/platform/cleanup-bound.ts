/**
 * Clean-up after a run was interrupted has a bound of its own: Ctrl-C must end a run within seconds
 * whatever the storage does (a frozen server answers no DeleteObjects either). Every clean-up of a run
 * shares one deadline, INTERRUPTED_CLEANUP_MS after the interrupt; what it could not do by then is named.
 */

import { setMaxListeners } from "node:events";

export const INTERRUPTED_CLEANUP_MS = 5_000;

/** Per run signal and wait: the signal that aborts that long after it (one timer per run, not per call). */
const deadlines = new WeakMap<AbortSignal, Map<number, AbortSignal>>();

function afterInterrupt(interrupt: AbortSignal, ms = INTERRUPTED_CLEANUP_MS): AbortSignal {
  let byWait = deadlines.get(interrupt);
  if (!byWait) deadlines.set(interrupt, (byWait = new Map()));
  let deadline = byWait.get(ms);
  if (!deadline) {
    const controller = new AbortController();
    const start = () => {
      setTimeout(
        () => controller.abort(new Error(`given up ${ms / 1000} s after the interrupt`)),
        ms,
      ).unref();
    };
    if (interrupt.aborted) start();
    else interrupt.addEventListener("abort", start, { once: true });
    deadline = controller.signal;
    // Every clean-up of the run listens to it.
    setMaxListeners(0, deadline);
    byWait.set(ms, deadline);
  }
  return deadline;
}

/**
 * For work an interrupt lets end by itself, briefly (a request whose end tells more than its abort would):
 * aborts `graceMs` after the interrupt, within the run's clean-up deadline.
 */
export const graceAfter = (interrupt: AbortSignal, graceMs: number): AbortSignal =>
  afterInterrupt(interrupt, Math.min(graceMs, INTERRUPTED_CLEANUP_MS));

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
