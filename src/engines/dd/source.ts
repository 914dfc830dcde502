/**
 * The file dd writes copy from: payload bytes (unique per repetition, incompressible unless the spec asks
 * otherwise), generated at memory speed into one reused buffer, on tmpfs when it fits comfortably in
 * free memory — so neither generating it nor reading it is what a dd write measures (`npm run bench`:
 * a 1 GiB source from the CSPRNG written to the disk-backed temp dir cost seconds per repetition and
 * slowed dd's own reads of it).
 */
import { existsSync, rmSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";
import { makePayload } from "../load/payload.js";
import type { ExecContext } from "../types.js";
import type { SdkData } from "../../emit/sdk-format.js";

const CHUNK = 16 * 2 ** 20;
const SHM = "/dev/shm";

export interface SourceFile {
  path: string;
  /** Overwrites the file in place with the payload of another identity (no new pages to allocate). */
  refill(identity: string): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Source dirs not yet disposed of. A second Ctrl-C exits at once, without the cases' cleanup; a source on
 * tmpfs would hold its memory until reboot, so whatever is left goes when the process exits.
 */
const live = new Set<string>();
process.once("exit", () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
});

export async function payloadSource(
  identity: string,
  bytes: number,
  data: SdkData,
  created: ExecContext["created"],
): Promise<SourceFile> {
  const parent = existsSync(SHM) && bytes <= freemem() / 4 ? SHM : tmpdir();
  const dir = await mkdtemp(join(parent, "benchspec-dd-"));
  // On record before it fills: killed meanwhile, the run leaves it (on tmpfs, RAM) for `clean` to remove.
  created({ kind: "directory", path: dir });
  live.add(dir);
  const dispose = async () => {
    await rm(dir, { recursive: true, force: true });
    live.delete(dir);
  };
  const path = join(dir, "source");
  try {
    await writePayloadFile(path, identity, bytes, data);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    path,
    refill: (next) => writePayloadFile(path, next, bytes, data, { inPlace: true }),
    dispose,
  };
}

/**
 * Writes the payload of `identity` to `path`: replacing the file, or over it in place (same size); `sync`
 * waits until it is on the storage.
 */
export async function writePayloadFile(
  path: string,
  identity: string,
  bytes: number,
  data: SdkData,
  options: { sync?: boolean; inPlace?: boolean } = {},
): Promise<void> {
  const payload = makePayload(identity, bytes, data);
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, bytes)));
  const file = await open(path, options.inPlace ? "r+" : "w");
  try {
    for (let offset = 0; offset < bytes; offset += CHUNK) {
      const n = Math.min(CHUNK, bytes - offset);
      await file.write(payload.slice(offset, n, buffer), 0, n, offset);
    }
    if (options.sync) await file.datasync();
  } finally {
    await file.close();
  }
}
