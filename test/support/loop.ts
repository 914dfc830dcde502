import { execa } from "execa";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real loop device over a sparse temp file (or one on a ramfs: no discard), empty or `holding` a partition table (one partition, which
 * partx adds to the kernel and removes again) or an ext4 file system; detach() removes it (and unmounts what
 * the test mounted).
 */
export async function loopDevice(
  sizeMiB: number,
  options: {
    readOnly?: boolean;
    holding?: "gpt" | "dos" | "ext4";
    /** Its I/O goes past the page cache to the disk holding the image: a device as slow as that disk. */
    directIo?: boolean;
    /**
     * Its image on a ramfs, which cannot punch holes: a device without discard support (discard_max_bytes 0).
     * The kernel keeps discard off for that loop number after it is detached, so detach() removes the loop
     * device and adds it again, fresh.
     */
    noDiscard?: boolean;
  } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-loop-"));
  const ramfs = join(dir, "ramfs");
  if (options.noDiscard) {
    await execa("mkdir", [ramfs]);
    await execa("mount", ["-t", "ramfs", "ramfs", ramfs]);
  }
  const image = join(options.noDiscard ? ramfs : dir, "disk.img");
  await execa("truncate", ["-s", `${sizeMiB}M`, image]);
  if (options.holding === "ext4") await execa("mkfs.ext4", ["-q", "-F", image]);
  else if (options.holding)
    await execa("sfdisk", ["-q", image], { input: `label: ${options.holding}\n,4M\n` });
  const { stdout } = await execa("losetup", [
    "--find",
    "--show",
    ...(options.readOnly ? ["--read-only"] : []),
    ...(options.directIo ? ["--direct-io=on"] : []),
    image,
  ]);
  const device = stdout.trim();
  const partitioned = options.holding === "gpt" || options.holding === "dos";
  if (partitioned) await execa("partx", ["-a", device]);
  const mountpoint = join(dir, "mnt");
  let mounted = false;
  return {
    device,
    /** What blkid reads on it now (PTTYPE, PTUUID, TYPE, UUID…). */
    async probe() {
      const { stdout: probed } = await execa("blkid", ["-p", "-o", "export", device], { reject: false });
      return Object.fromEntries(probed.split("\n").map((line) => line.split("=", 2)));
    },
    async mount() {
      await execa("mkfs.ext4", ["-q", device]);
      await execa("mkdir", ["-p", mountpoint]);
      await execa("mount", [device, mountpoint]);
      mounted = true;
      return mountpoint;
    },
    async detach() {
      if (mounted) await execa("umount", [mountpoint], { reject: false });
      if (partitioned) await execa("partx", ["-d", device], { reject: false });
      await execa("losetup", ["-d", device], { reject: false });
      if (options.noDiscard) {
        await execa("umount", [ramfs], { reject: false });
        await renewLoop(device);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Removes a detached loop device and adds it again (LOOP_CTL_REMOVE, LOOP_CTL_ADD on /dev/loop-control):
 * its queue limits start over. Best effort: a loop device someone else took meanwhile stays as it is.
 */
async function renewLoop(device: string): Promise<void> {
  const number = Number(device.replace(/^\/dev\/loop/, ""));
  const script = `import fcntl, os
fd = os.open("/dev/loop-control", os.O_RDWR)
fcntl.ioctl(fd, 0x4C81, ${number})
fcntl.ioctl(fd, 0x4C80, ${number})`;
  await execa("python3", ["-c", script], { reject: false });
}
