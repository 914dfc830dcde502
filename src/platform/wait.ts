import { BenchspecError } from "./errors.js";
import type { GroupProcess } from "./process.js";

/** A launched server died or never became ready; `output` is the tail of what it printed. */
function startFailure(message: string, output: string): BenchspecError {
  return new BenchspecError(
    "server-start",
    output.trim() ? `${message}\n--- output ---\n${output.trimEnd()}` : message,
  );
}

export interface WaitForHttpOptions {
  method?: "GET" | "POST";
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `url` until it answers 200, failing early (with the server's output) if the process exits first.
 * Polling is the only readiness signal both Kubo and MinIO offer without parsing their log text.
 */
export async function waitForHttp(
  url: string,
  server: GroupProcess,
  { method = "GET", timeoutMs = 60_000, intervalMs = 100 }: WaitForHttpOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  for (;;) {
    if (server.hasExited()) {
      const { exitCode, signal } = await server.exited;
      throw startFailure(
        `${server.label} exited (${signal ?? `code ${exitCode}`}) before ${url} answered`,
        server.output(),
      );
    }
    try {
      const response = await fetch(url, { method, signal: AbortSignal.timeout(2_000) });
      // Drain the body so the keep-alive socket is reusable and not leaked.
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String((error as Error).cause ?? error);
    }
    if (Date.now() >= deadline) {
      throw startFailure(
        `${server.label} did not answer ${method} ${url} with 200 within ${timeoutMs} ms (last: ${last})`,
        server.output(),
      );
    }
    // Wake as soon as the server dies instead of sleeping out the interval.
    await Promise.race([new Promise((resolve) => setTimeout(resolve, intervalMs)), server.exited]);
  }
}
