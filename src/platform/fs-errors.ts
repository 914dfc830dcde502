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
