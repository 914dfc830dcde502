/**
 * benchspec's one error type. What went wrong is a stable code, read by the code that decides (the
 * command line's exit status, the runner's "this target stopped answering"); the message is for people and
 * is never parsed. Modelled on commander's CommanderError: a code and the exit status it ends a command with.
 */

export const EXIT = { ok: 0, failure: 1, invalid: 2, interrupted: 130 } as const;

/** Every code, and the exit status of a command that ends with it. */
export const ERROR_CODES = {
  /** The command line asks for what cannot be done (options that contradict each other, say). */
  usage: EXIT.invalid,
  /** An input file is not what the command needs: unreadable results, nothing to compare. */
  "invalid-input": EXIT.invalid,
  /** A spec expression that does not parse or evaluate (a diagnostic before it could end a command). */
  "invalid-expression": EXIT.invalid,
  /** A --set that cannot apply (a diagnostic too). */
  "invalid-override": EXIT.invalid,
  /** A valid spec none of whose workloads the requested compile targets can express, or an unknown compile target. */
  "not-compilable": EXIT.invalid,
  /** An output directory or file that cannot be created or written. */
  "unwritable-output": EXIT.invalid,
  /** A run directory another benchspec process is running or resuming (run.lock names it). */
  "run-locked": EXIT.invalid,
  /** A run that cannot start for a reason other than its command line. */
  "run-setup": EXIT.failure,
  /** A target that could not be prepared; the error it wraps says why. */
  "target-setup": EXIT.failure,
  /** A block device that is missing, not a block device, or in use. */
  "unsafe-device": EXIT.failure,
  /** The run directory stopped taking writes mid-run (deleted, read-only): the run stops, keeping what it has. */
  "run-directory": EXIT.failure,
  /** A tool binary neither in the tools cache nor on PATH. */
  "tool-not-found": EXIT.failure,
  /** A launched server that exited or never became ready. */
  "server-start": EXIT.failure,
  /** A server's reply that is not HTTP/1.1. */
  "http-protocol": EXIT.failure,
  /** A server that stopped answering (its requests time out): the runner gives up on the target. */
  "target-unresponsive": EXIT.failure,
  /** A client host that died, froze or became unreachable while it ran a case. */
  "host-lost": EXIT.failure,
  /** A guard that caught what validation should have refused (a bug): said like an error without a code. */
  internal: EXIT.failure,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class BenchspecError extends Error {
  readonly exitCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.exitCode = ERROR_CODES[code];
  }
}

/**
 * Another's error (a socket's, a library's) marked with a code for the code that decides; its name and
 * message stay, so what people read does not change.
 */
export function marked(code: ErrorCode, cause: Error): BenchspecError {
  const error = new BenchspecError(code, cause.message, { cause });
  error.name = cause.name;
  return error;
}

/** Whether `error` is a BenchspecError with `code`. */
export const hasCode = (error: unknown, code: ErrorCode): error is BenchspecError =>
  error instanceof BenchspecError && error.code === code;

/**
 * The code of what failed first-hand: the innermost coded error of the `cause` chain (a wrapper such as a
 * target's "target "x": …" adds context, not a different failure). Undefined for errors without a code.
 */
export function rootCode(error: unknown): ErrorCode | undefined {
  let code: ErrorCode | undefined;
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof BenchspecError) code = e.code;
  return code;
}
