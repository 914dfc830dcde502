/** The S3 engine in a load thread (../threads.ts): its own clients, the same operations as the main thread. */
import type { MakeThreadExecute } from "../load/load-thread.js";
import { openClients, s3Operations, warmClients, type S3Wiring } from "./ops.js";

export const makeThreadExecute: MakeThreadExecute = async (input) => {
  const wiring = input as S3Wiring;
  const clients = openClients(wiring);
  return {
    execute: s3Operations(wiring, clients) as never,
    close: () => clients.destroy(),
    warm: (signal) => warmClients(wiring, clients, signal),
  };
};
