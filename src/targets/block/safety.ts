/**
 * The check before any write to a block device. Whatever name the spec uses (/dev/disk/by-id/… symlinks
 * are resolved), the device is refused when it, its parent disk, any of its partitions, any holder
 * (LVM, MD, dm-crypt…) or any loop device attached over one of them is mounted or used as swap, and when the kernel reports it busy (an exclusive open
 * fails while anything holds it). Everything is read from /sys and /proc. A destructive target is also
 * refused when it has holders, or holds what blkid recognises (a partition table, a file system, an LVM,
 * RAID or swap signature) that the spec's `overwrite` does not name exactly (blockOverwrite).
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
import { execFileSync } from "node:child_process";
import { basename, join } from "node:path";
import { mounts } from "../../platform/mounts.js";
import { BenchspecError } from "../../platform/errors.js";
import type { TargetOf } from "../../spec/target-kinds.js";

function swaps(): string[] {
  return readFileSync("/proc/swaps", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.split(/\s+/)[0]!)
    .filter(Boolean);
}

/** The kernel name (e.g. "nvme0n1p2", "loop3", "dm-0") of a device node. */
export function kernelName(device: string): string {
  return nameOfDevice(statSync(device).rdev);
}

/** The kernel name of the block device with this device number. */
function nameOfDevice(rdev: number): string {
  const major = Math.floor(rdev / 256) & 0xfff;
  const minor = (rdev & 0xff) | ((rdev >> 12) & 0xfff00);
  return basename(realpathSync(`/sys/dev/block/${major}:${minor}`));
}

const sysDir = (name: string) => realpathSync(`/sys/class/block/${name}`);

/** Kernel names of a disk's partitions (none for a partition or an unpartitioned disk). */
function partitionsOf(name: string): string[] {
  const dir = sysDir(name);
  return readdirSync(dir).filter((entry) => existsSync(join(dir, entry, "partition")));
}

/** Kernel names of what holds a device open as its own lower layer (device mapper, LVM, md…). */
function holdersOf(name: string): string[] {
  const holders = join(sysDir(name), "holders");
  return existsSync(holders) ? readdirSync(holders) : [];
}

/**
 * Loop devices attached over one of `names` (the kernel lists no holder for them): backed by the device node
 * itself (`losetup --offset 1M /dev/loopB /dev/loopA`) or by a file on a file system that lives on it.
 */
function loopsOver(names: ReadonlySet<string>): string[] {
  const loops: string[] = [];
  for (const loop of readdirSync("/sys/block").filter((entry) => entry.startsWith("loop"))) {
    let backing: string;
    try {
      backing = readFileSync(`/sys/block/${loop}/loop/backing_file`, "utf8").trim();
    } catch {
      continue; // not attached
    }
    try {
      const stats = statSync(backing);
      const under = stats.isBlockDevice() ? kernelName(backing) : nameOfDevice(stats.dev);
      if (names.has(under)) loops.push(loop);
    } catch {
      // a backing file deleted since ("… (deleted)") or on a device without a node: not one of ours to find
    }
  }
  return loops;
}

/**
 * The device itself, its parent disk, its partitions, and (transitively) every holder of any of them and
 * every loop device attached over any of them.
 */
export function relatedDevices(name: string): Set<string> {
  const related = new Set<string>([name]);
  if (existsSync(join(sysDir(name), "partition"))) related.add(basename(join(sysDir(name), "..")));
  const queue = [...related];
  while (queue.length > 0) {
    const member = queue.pop()!;
    for (const other of [...partitionsOf(member), ...holdersOf(member), ...loopsOver(new Set([member]))]) {
      if (!related.has(other)) {
        related.add(other);
        queue.push(other);
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

/** The block target's acknowledgement of what its device holds (schema.ts). */
export type Overwrite = NonNullable<TargetOf<"block">["overwrite"]>;

/** What blkid finds on a device: a partition table (PTTYPE) or what the device itself is (TYPE). */
interface Signature {
  type: string;
  uuid: string | undefined;
  table: boolean;
}

/** blkid's low-level probe (-p: the device's own sectors, never its cache). */
function signatures(path: string, device: string): Signature[] {
  let output: string;
  try {
    output = execFileSync("blkid", ["-p", "-o", "export", path], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const failure = error as { status?: number | null; code?: string; stderr?: string };
    // blkid's exit status 2: nothing recognised; 8: more than one candidate.
    if (failure.status === 2) return [];
    if (failure.status === 8)
      throw new BenchspecError(
        "unsafe-device",
        `refusing ${device}: blkid finds more than one signature on it (wipefs -n ${path} lists them); clear it yourself (wipefs -a) if all of it is to go`,
      );
    const why =
      failure.code === "ENOENT" ? "blkid (util-linux) is not installed" : String(failure.stderr).trim();
    throw new BenchspecError("unsafe-device", `cannot check what ${device} holds: ${why}`);
  }
  const fields = new Map(
    output.split("\n").map((line) => [line.split("=", 1)[0]!, line.slice(line.indexOf("=") + 1)]),
  );
  const found: Signature[] = [];
  const table = fields.get("PTTYPE");
  if (table !== undefined) found.push({ type: table, uuid: fields.get("PTUUID"), table: true });
  const type = fields.get("TYPE");
  if (type !== undefined) found.push({ type, uuid: fields.get("UUID"), table: false });
  return found;
}

const described = (s: Signature) => `${s.type}${s.uuid === undefined ? "" : ` (uuid ${s.uuid})`}`;

/**
 * A destructive target destroys what its device holds, so the spec must name it: a device with holders is
 * in use; one with partitions, a partition table or a signature is refused unless `overwrite` names that
 * exact signature (and its uuid, when given) — a disk that changed since the spec was written is refused.
 */
function checkOverwrite(device: string, path: string, name: string, overwrite: Overwrite | undefined) {
  const partitions = partitionsOf(name);
  const holders = [name, ...partitions].flatMap(holdersOf);
  if (holders.length > 0)
    throw new BenchspecError(
      "unsafe-device",
      `refusing ${device}: it is held by ${holders.map((h) => `/dev/${h}`).join(", ")} (device mapper, LVM, md…)`,
    );
  const loops = loopsOver(new Set([name, ...partitions]));
  if (loops.length > 0)
    throw new BenchspecError(
      "unsafe-device",
      `refusing ${device}: loop device ${loops.map((l) => `/dev/${l}`).join(", ")} is attached over it (what it holds would be destroyed; losetup -d it first)`,
    );
  const found = signatures(path, device);
  if (found.length > 1)
    throw new BenchspecError(
      "unsafe-device",
      `refusing ${device}: it holds ${found.map(described).join(" and ")}; overwrite names one signature, so clear it yourself (wipefs -a) if all of it is to go`,
    );
  const held = found[0];
  const parts = partitions.length > 0 ? ` with partitions ${partitions.join(", ")}` : "";
  if (held === undefined || !held.table) {
    if (partitions.length > 0)
      throw new BenchspecError(
        "unsafe-device",
        `refusing ${device}: it has partitions (${partitions.join(", ")}) but no partition table blkid recognises`,
      );
    if (held === undefined) return;
  }
  const matches =
    overwrite?.signature === held.type &&
    (overwrite.uuid === undefined || overwrite.uuid.toLowerCase() === held.uuid?.toLowerCase());
  if (matches) return;
  const what = held.table ? `a ${described(held)} partition table${parts}` : `a ${described(held)} signature`;
  const asked = overwrite
    ? `the spec's overwrite names ${overwrite.signature}${overwrite.uuid === undefined ? "" : ` (uuid ${overwrite.uuid})`}, but it holds ${what}`
    : `it holds ${what}, which destructive: true alone does not destroy`;
  const ack = `overwrite: { signature: ${held.type}${held.uuid === undefined ? "" : `, uuid: ${held.uuid}`} }`;
  throw new BenchspecError(
    "unsafe-device",
    `refusing ${device}: ${asked}; to destroy it, add ${ack} to its target`,
  );
}

/**
 * Resolves the spec's device name and checks it is a block device nothing uses. `write` adds the
 * exclusive-open check (the kernel's own view of "in use"); `destructive` the check of what the device holds
 * against `overwrite`. Returns the resolved path.
 */
export function checkBlockDevice(
  device: string,
  {
    write,
    destructive,
    overwrite,
  }: { write: boolean; destructive: boolean; overwrite?: Overwrite | undefined },
): string {
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
  if (destructive) checkOverwrite(device, path, name, overwrite);
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
