/**
 * A block target's purge: the whole device discarded (`blkdiscard`) when it supports discard, else zeros
 * written over all of it (`blkdiscard --zeroout`, which the kernel turns into WRITE ZEROES or plain writes).
 * The device passed the write safety check when the target was prepared: a purge counts as writing.
 */
import { readFileSync } from "node:fs";
import { runGroup } from "../../platform/process.js";
import { kernelName } from "./safety.js";

/** Whether the kernel would pass a discard to the device (a 0 limit means it does not support one). */
export function supportsDiscard(device: string): boolean {
  try {
    return Number(readFileSync(`/sys/class/block/${kernelName(device)}/queue/discard_max_bytes`, "utf8")) > 0;
  } catch {
    return false;
  }
}

export async function purgeBlockDevice(device: string, signal: AbortSignal): Promise<string> {
  const discard = supportsDiscard(device);
  const args = discard ? [device] : ["--zeroout", device];
  const result = await runGroup("blkdiscard", args, { label: "blkdiscard", signal });
  if (result.aborted) throw new Error("interrupted");
  if (result.exitCode !== 0)
    throw new Error(`purge of ${device} failed: blkdiscard ${args.join(" ")}: ${result.output.trim()}`);
  return discard ? `discarded ${device} (blkdiscard)` : `zeros written over ${device} (no discard support)`;
}
