/**
 * The check before any write to a block device. Whatever name the spec uses (/dev/disk/by-id/… symlinks
 * are resolved), the device is refused when it, its parent disk, any of its partitions or any holder
 * (LVM, MD, dm-crypt…) is mounted or used as swap, and when the kernel reports it busy (an exclusive open
 * fails while anything holds it). Everything is read from /sys and /proc.
 */
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, join } from "node:path";
import { mounts } from "../../platform/mounts.js";
import { BenchspecError } from "../../platform/errors.js";

function swaps(): string[] {
  return readFileSync("/proc/swaps", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.split(/\s+/)[0]!)
    .filter(Boolean);
}

/** The kernel name (e.g. "nvme0n1p2", "loop3", "dm-0") of a device node. */
function kernelName(device: string): string {
  const rdev = statSync(device).rdev;
  const major = Math.floor(rdev / 256) & 0xfff;
  const minor = (rdev & 0xff) | ((rdev >> 12) & 0xfff00);
  return basename(realpathSync(`/sys/dev/block/${major}:${minor}`));
}

/** The device itself, its parent disk, its partitions, and (transitively) every holder of any of them. */
export function relatedDevices(name: string): Set<string> {
  const sys = (n: string) => realpathSync(`/sys/class/block/${n}`);
  const related = new Set<string>([name]);
  const dir = sys(name);
  if (existsSync(join(dir, "partition"))) related.add(basename(join(dir, "..")));
  for (const member of [...related]) {
    for (const entry of readdirSync(sys(member))) {
      if (existsSync(join(sys(member), entry, "partition"))) related.add(entry);
    }
  }
  const queue = [...related];
  while (queue.length > 0) {
    const holders = join(sys(queue.pop()!), "holders");
    for (const holder of existsSync(holders) ? readdirSync(holders) : []) {
      if (!related.has(holder)) {
        related.add(holder);
        queue.push(holder);
      }
    }
  }
  return related;
}

/** Name of each mounted or swapped-on block device, with what uses it. */
function usedDevices(): Map<string, string> {
  const used = new Map<string, string>();
  const note = (source: string, use: string) => {
    if (!source.startsWith("/dev/")) return;
    try {
      used.set(kernelName(source), use);
    } catch {
      // a stale or unreadable source cannot be ours
    }
  };
  for (const mount of mounts()) note(mount.source, `mounted on ${mount.target}`);
  for (const swap of swaps()) note(swap, "used as swap");
  return used;
}

/**
 * Resolves the spec's device name and checks it is a block device nothing uses. `write` adds the
 * exclusive-open check (the kernel's own view of "in use"). Returns the resolved path.
 */
export function checkBlockDevice(device: string, { write }: { write: boolean }): string {
  let path: string;
  try {
    path = realpathSync(device);
  } catch {
    throw new BenchspecError("unsafe-device", `${device} does not exist`);
  }
  if (!statSync(path).isBlockDevice())
    throw new BenchspecError("unsafe-device", `${device} is not a block device`);
  const name = kernelName(path);
  const used = usedDevices();
  for (const related of relatedDevices(name)) {
    const use = used.get(related);
    if (use) {
      const relation = related === name ? "it" : `/dev/${related} (related to it)`;
      throw new BenchspecError("unsafe-device", `refusing ${device}: ${relation} is ${use}`);
    }
  }
  if (write) {
    try {
      closeSync(openSync(path, constants.O_RDONLY | constants.O_EXCL));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EBUSY")
        throw new BenchspecError("unsafe-device", `refusing ${device}: the kernel reports it in use`);
      throw error;
    }
  }
  return path;
}
