/**
 * Writing an output whole or not at all. A regular file (or none yet) is replaced by a rename of a
 * temporary file written beside it, so a full disk or a crash mid-write leaves the previous file (or none),
 * never a truncated one. What is not a regular file is never replaced: a symlink is followed and its target
 * written (the link stays), a character device or a FIFO (/dev/null, /dev/stdout, a pipe) is written into,
 * and a directory or a block device is refused.
 */
import { randomBytes } from "node:crypto";
import { fstatSync, writeFile as writeFileCallback, type Stats } from "node:fs";
import { promisify } from "node:util";
import {
  lstat,
  mkdir,
  readdir,
  readlink,
  realpath,
  rm,
  rmdir,
  rename,
  stat,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { describeFileType } from "./fs-errors.js";

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const place = await outputPlace(file);
  if (place.stream) {
    if (place.descriptor === undefined) await writeFile(file, data);
    else await writeToDescriptor(place.descriptor, data);
    return;
  }
  const temporary = join(
    dirname(place.path),
    `.${basename(place.path)}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    await writeFile(temporary, data, { flag: "wx" });
    await rename(temporary, place.path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Where the bytes for `file` go: the regular file to replace (a symlink's target), or a stream to write into. */
export async function outputPlace(
  file: string,
): Promise<{ stream: true; descriptor?: number } | { stream: false; path: string }> {
  const stats = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!stats) {
    // Nothing there yet, or a symlink to nothing: the file is made where the link points, as a shell's `>`.
    const link = await lstat(file).catch(() => undefined);
    return {
      stream: false,
      path: link?.isSymbolicLink() ? resolve(dirname(file), await readlink(file)) : file,
    };
  }
  if (stats.isFile()) return { stream: false, path: await realpath(file) };
  if (stats.isCharacterDevice() || stats.isFIFO()) return { stream: true };
  // A socket cannot be opened by its name; one this process holds as stdout or stderr (/dev/stdout when a
  // parent process reads it through a socket pair) is written through that descriptor.
  if (stats.isSocket()) {
    const held = [1, 2].find((fd) => {
      const own = fstatOrNone(fd);
      return own !== undefined && own.dev === stats.dev && own.ino === stats.ino;
    });
    if (held !== undefined) return { stream: true, descriptor: held };
  }
  throw Object.assign(
    new Error(
      `${describeFileType(stats).replace(/^a /, "is a ")}${stats.isBlockDevice() ? ": an output never goes onto a device" : ""}`,
    ),
    { code: stats.isDirectory() ? "EISDIR" : "EBLOCKDEV" },
  );
}

const writeToDescriptor = promisify(writeFileCallback) as (
  fd: number,
  data: string | Uint8Array,
) => Promise<void>;

function fstatOrNone(fd: number): Stats | undefined {
  try {
    return fstatSync(fd);
  } catch {
    return undefined;
  }
}

/**
 * Makes a directory whole or not at all: `fill` writes into a staging directory, moved into place once
 * complete. A new directory is staged beside it (same file system) and renamed; an existing empty one (a
 * mount point, say, which cannot be renamed onto) is staged inside it and the finished entries renamed out,
 * which cannot run out of space. On any failure (a full disk, Ctrl-C) the staging directory is removed and
 * `dir` is as it was: absent, or empty.
 */
export async function makeDirectoryAtomic<T>(dir: string, fill: (staging: string) => Promise<T>): Promise<T> {
  const target = resolve(dir);
  const exists = await stat(target).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  const hidden = `.${exists ? "staging" : basename(target)}.${randomBytes(4).toString("hex")}.tmp`;
  const staging = join(exists ? target : dirname(target), hidden);
  try {
    await mkdir(staging);
    const result = await fill(staging);
    if (!exists) await rename(staging, target);
    else {
      for (const entry of await readdir(staging)) await rename(join(staging, entry), join(target, entry));
      await rmdir(staging);
    }
    return result;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
