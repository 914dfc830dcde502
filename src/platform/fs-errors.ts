import type { Stats } from "node:fs";

/** "permission denied" rather than "EACCES: permission denied, mkdir '/x'" (the path is said already). */
export function describeFsError(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
      return "no space left on device";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "a parent is not a directory";
    case "ENOENT":
      return "no such file or directory";
    default:
      return message;
  }
}

/** What a path that is not a regular file is, for a message ("a FIFO"). */
export function describeFileType(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "a special file";
}
