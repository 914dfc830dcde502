/**
 * The file dd writes copy from: payload bytes (unique per repetition, incompressible unless the spec asks
 * otherwise), generated at memory speed into one reused buffer, on tmpfs when it fits comfortably in
 * free memory — so neither generating it nor reading it is what a dd write measures (`npm run bench`:
 * a 1 GiB source from the CSPRNG written to the disk-backed temp dir cost seconds per repetition and
 * slowed dd's own reads of it).
 */
import { existsSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";
import { makePayload } from "../payload.js";
import type { SdkData } from "../sdk-format.js";

const CHUNK = 16 * 2 ** 20;
const SHM = "/dev/shm";

export interface SourceFile {
  path: string;
  dispose(): Promise<void>;
}

export async function payloadSource(identity: string, bytes: number, data: SdkData): Promise<SourceFile> {
  const parent = existsSync(SHM) && bytes <= freemem() / 4 ? SHM : tmpdir();
  const dir = await mkdtemp(join(parent, "benchspec-dd-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, "source");
  try {
    const payload = makePayload(identity, bytes, data);
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, bytes)));
    const file = await open(path, "w");
    try {
      for (let offset = 0; offset < bytes; offset += CHUNK) {
        const n = Math.min(CHUNK, bytes - offset);
        await file.write(payload.slice(offset, n, buffer), 0, n, offset);
      }
    } finally {
      await file.close();
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { path, dispose };
}
