/**
 * Writing a file whole or not at all: the bytes go to a temporary file beside it, then a rename replaces
 * the target. A full disk or a crash mid-write leaves the previous file (or none), never a truncated one.
 */
import { randomBytes } from "node:crypto";
import { rm, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, data, { flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
