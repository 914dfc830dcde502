import { readFileSync } from "node:fs";

export interface Mount {
  source: string;
  target: string;
  fsType: string;
}

/** /proc/self/mounts, with the kernel's octal escapes (\040 for a space) undone. */
export function mounts(): Mount[] {
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [source = "", target = "", fsType = ""] = line.split(" ").map(unescapeMount);
      return { source, target, fsType };
    });
}

const unescapeMount = (text: string) =>
  text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The file system type a path lives on (the mount with the longest matching prefix). */
export function fsTypeOf(path: string): string | undefined {
  let best: Mount | undefined;
  for (const mount of mounts()) {
    const prefix = mount.target.endsWith("/") ? mount.target : `${mount.target}/`;
    if (
      (path === mount.target || path.startsWith(prefix)) &&
      (!best || mount.target.length >= best.target.length)
    )
      best = mount;
  }
  return best?.fsType;
}
