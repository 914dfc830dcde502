/** A failed connection in words: what the socket said, found anywhere in an error's `cause` chain. */

const CONNECTION_CODES = new Map([
  ["ECONNREFUSED", "connection refused"],
  ["ENOTFOUND", "host not found"],
  ["EAI_AGAIN", "host name lookup failed"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ENETUNREACH", "network unreachable"],
  ["ETIMEDOUT", "connection timed out"],
  ["ECONNRESET", "connection reset"],
]);

/** "connection refused" for an error (or one it wraps) from a socket that could not connect; else undefined. */
export function connectionFailure(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    const words = CONNECTION_CODES.get((e as NodeJS.ErrnoException).code ?? "");
    if (words) return words;
  }
  return undefined;
}
