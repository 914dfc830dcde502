/**
 * A load thread (threads.ts): builds its engine's executor from the serializable input it was started
 * with, then runs its share of each load the main thread sends, on the shared cursor.
 */
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { rootCode } from "../../platform/errors.js";
import { describeError, runLoad, type Execute } from "./load.js";
import type { FromThread, ThreadInit, ToThread } from "./threads.js";

/** What an engine's thread module exports. */
export type MakeThreadExecute = (input: unknown) => Promise<{
  execute: Execute<unknown>;
  close(): Promise<void> | void;
  /** LoadDriver.warm, in this thread. */
  warm?(signal: AbortSignal): Promise<void>;
}>;

const port = parentPort!;
const init = workerData as ThreadInit;
const { makeThreadExecute } = (await import(init.module)) as { makeThreadExecute: MakeThreadExecute };
const { execute, close, warm } = await makeThreadExecute(init.input);
const running = new Map<number, AbortController>();
const send = (message: FromThread) => port.postMessage(message);

port.on("message", (message: ToThread) => {
  switch (message.type) {
    case "run": {
      const controller = new AbortController();
      running.set(message.id, controller);
      void runLoad(
        message.ops as { from?: number; count?: number }[],
        execute,
        { ...message.options, signal: controller.signal },
        message.share,
      ).then((result) => {
        running.delete(message.id);
        send({
          type: "result",
          id: message.id,
          records: result.records,
          elu: result.elu,
          timeOrigin: performance.timeOrigin,
        });
      });
      break;
    }
    case "warm": {
      const controller = new AbortController();
      running.set(message.id, controller);
      void Promise.resolve(warm?.(controller.signal))
        .then(
          () => ({}),
          (error: Error) => ({ error: describeError(error), code: rootCode(error) }),
        )
        .then((failure) => {
          running.delete(message.id);
          send({ type: "warmed", id: message.id, ...failure });
        });
      break;
    }
    case "abort":
      running.get(message.id)?.abort();
      break;
    case "close":
      void Promise.resolve(close()).finally(() => {
        send({ type: "closed" });
        port.close();
      });
      break;
  }
});
send({ type: "ready" });
