/**
 * The worker protocol: what the coordinator (benchspec run, on this machine) and a worker (`benchspec
 * worker`, on a client host) say to each other. One JSON object per line, on the worker's stdin and stdout,
 * whatever carries them (an ssh session, srun's broadcast stdin and labelled stdout, an Indexed Job's
 * attached streams): the transport only moves lines. Every message names the worker it is for (`to`) or from
 * (`from`), so a transport that broadcasts one stdin to all workers (srun --input=all) needs nothing more.
 *
 *   coordinator                       worker
 *   hello {runId, artifacts}     →    ← hello {version, hostname, unavailable}
 *   clock {id}                   →    ← clock {id, now}           (repeated: offset and its bound)
 *   prepare {case, target}       →    ← ready | failed            (target, case place, the engine's prepare)
 *   arm {case, rep}              →    ← armed                     (all that precedes the repetition's I/O)
 *   clock {id}                   →    ← clock {id, now}           (again, just before the start)
 *   start {case, rep, at}        →    ← result {measurement}      (at = the start instant on the worker's clock)
 *   abort                        →                                (Ctrl-C: the running step ends early)
 *   finish {case}                →    ← finished
 *   bye                          →    ← bye                       (targets released; the worker exits)
 *                                     ← alive                     (every second, whatever it does)
 *   alive                        →                                (every second: the coordinator is there)
 *                                     ← leftover                  (something created outside its run)
 * End of file on stdin is an abort followed by bye: a coordinator that dies takes its workers with it. So is
 * silence: a worker that hears nothing for SILENCE_LIMIT_MS (STARTUP_LIMIT_MS before hello) takes its
 * coordinator for dead — killed with SIGKILL, its carrier gone, yet the worker's stdin still open (srun's
 * step outlives the srun that started it).
 */
import { z } from "zod";
import { ArtifactSchema } from "../emit/types.js";
import { CaseSchema } from "../plan/types.js";
import { MeasurementSchema } from "../rows/row.js";
import { TargetSchema } from "../spec/schema.js";
import { LeftoverSchema } from "../targets/types.js";

export const PROTOCOL_VERSION = 5;

/** How often each side says it is alive, and how long the other waits without hearing from it. */
export const ALIVE_INTERVAL_MS = 1_000;
export const SILENCE_LIMIT_MS = 10_000;
/** How long a worker may take to say its first word (ssh connecting, Node starting, `npx` fetching). */
export const STARTUP_LIMIT_MS = 90_000;

const caseId = z.string().min(1).max(4096);

export const ToWorkerSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("hello"),
    to: z.number().int(),
    protocol: z.number().int(),
    runId: z.string(),
    spec: z.string(),
    /** The values of the ${env:NAME} references the host's targets need (secrets travel here, never in argv). */
    env: z.record(z.string(), z.string()),
    engines: z.array(z.string()),
    /** How many hosts the group has (this one is `to`): an open loop's rate is split between them. */
    hosts: z.number().int().positive(),
    /** The files its engines read (fio jobfiles, sdk call sequences), the run's own: the worker compiles nothing. */
    artifacts: z.array(ArtifactSchema),
  }),
  z.object({ t: z.literal("clock"), to: z.number().int(), id: z.number().int() }),
  z.object({
    t: z.literal("prepare"),
    to: z.number().int(),
    /** The plan's case and its target, parsed with the spec's own schemas at this end too. */
    case: CaseSchema,
    target: TargetSchema,
    writes: z.boolean(),
  }),
  z.object({
    t: z.literal("arm"),
    to: z.number().int(),
    case: caseId,
    repetition: z.number().int(),
    warmup: z.boolean(),
  }),
  z.object({
    t: z.literal("start"),
    to: z.number().int(),
    case: caseId,
    repetition: z.number().int(),
    warmup: z.boolean(),
    at: z.number(),
  }),
  z.object({ t: z.literal("abort"), to: z.number().int() }),
  z.object({ t: z.literal("alive"), to: z.number().int() }),
  z.object({ t: z.literal("finish"), to: z.number().int(), case: caseId }),
  z.object({ t: z.literal("bye"), to: z.number().int() }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

export const FromWorkerSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("hello"),
    from: z.number().int(),
    protocol: z.number().int(),
    version: z.string(),
    hostname: z.string(),
    /** Engines this host cannot run, and why (fio not installed…). */
    unavailable: z.record(z.string(), z.string()),
  }),
  z.object({ t: z.literal("clock"), from: z.number().int(), id: z.number().int(), now: z.number() }),
  z.object({ t: z.literal("ready"), from: z.number().int(), case: caseId }),
  z.object({
    t: z.literal("failed"),
    from: z.number().int(),
    case: caseId,
    error: z.string(),
  }),
  z.object({
    t: z.literal("armed"),
    from: z.number().int(),
    case: caseId,
    repetition: z.number().int(),
    warmup: z.boolean(),
  }),
  z.object({
    t: z.literal("result"),
    from: z.number().int(),
    case: caseId,
    repetition: z.number().int(),
    warmup: z.boolean(),
    /** The engine's Measurement, on the worker's clock. */
    measurement: MeasurementSchema,
  }),
  z.object({
    t: z.literal("finished"),
    from: z.number().int(),
    case: caseId,
    problems: z.array(z.string()),
  }),
  /** Something the worker created outside any run directory: a target's (`target`), or its own scratch. */
  z.object({
    t: z.literal("leftover"),
    from: z.number().int(),
    target: z.string().optional(),
    /**
     * The host it is on, by the name the worker knows it (a Slurm node's before its hello is read); absent:
     * this machine (the fio transport's stand-in, which runs here).
     */
    host: z.string().optional(),
    leftover: LeftoverSchema,
  }),
  /** Said every ALIVE_INTERVAL_MS; `busy` while it has a step to do (so a wait it is not working on shows). */
  z.object({ t: z.literal("alive"), from: z.number().int(), busy: z.boolean() }),
  z.object({ t: z.literal("bye"), from: z.number().int(), problems: z.array(z.string()) }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;

/** A message as its sender writes it: the address (`to`, `from`) is added when it is sent. */
type Unaddressed<M, K extends string> = M extends unknown ? Omit<M, K> : never;
export type ToWorkerBody = Unaddressed<ToWorker, "to">;
export type FromWorkerBody = Unaddressed<FromWorker, "from">;

/**
 * One message as the line a transport carries. A message to a worker is encoded with its schema: a case's
 * normalized values go as the spec writes them ("67108864B"), which the worker's parse reads back exactly.
 */
export const encodeMessage = (message: ToWorker | FromWorker) =>
  `${JSON.stringify("to" in message ? z.encode(ToWorkerSchema, message) : message)}\n`;

/**
 * The longest line a worker writes, in bytes. srun cuts its tasks' longer output lines into pieces of 1 KiB
 * and interleaves the pieces of different tasks; a message longer than this goes as pieces, each a line
 * naming its sender ("+<from>:" while more follow, "=<from>:" for the last), which FromWorkerLines joins.
 */
export const LINE_LIMIT = 1000;

/** A worker's message as the lines it writes. */
export function encodeFromWorker(message: FromWorker): string {
  // ASCII only (JSON's \u escapes), so that a piece's characters are its bytes.
  const json = JSON.stringify(message).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (json.length < LINE_LIMIT) return `${json}\n`;
  const size = LINE_LIMIT - 16;
  let lines = "";
  for (let at = 0; at < json.length; at += size)
    lines += `${at + size < json.length ? "+" : "="}${message.from}:${json.slice(at, at + size)}\n`;
  return lines;
}

/** Reads the lines of the workers of one transport: whole messages, and pieces joined per sender. */
export class FromWorkerLines {
  private readonly partial = new Map<number, string>();

  /** The message a line completes, or undefined (a piece, or anything else: see decode). */
  decode(line: string): FromWorker | undefined {
    const piece = /^([+=])(\d+):/.exec(line);
    if (!piece) return decodeFromWorker(line);
    const from = Number(piece[2]);
    const text = (this.partial.get(from) ?? "") + line.slice(piece[0].length);
    if (piece[1] === "+") {
      this.partial.set(from, text);
      return undefined;
    }
    this.partial.delete(from);
    return decodeFromWorker(text);
  }
}

/**
 * A line read from the other side, or undefined for anything else on that stream (a login banner, a shell's
 * complaint): those are kept for error messages, never taken as messages.
 */
function decode<T>(schema: z.ZodType<T>, line: string): T | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const decodeFromWorker = (line: string) => decode(FromWorkerSchema, line);
export const decodeToWorker = (line: string) => decode(ToWorkerSchema, line);
