import { execa } from "execa";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A real loop device over a sparse temp file; detach() removes it (and unmounts what the test mounted). */
export async function loopDevice(sizeMiB: number, options: { readOnly?: boolean } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-loop-"));
  const image = join(dir, "disk.img");
  await execa("truncate", ["-s", `${sizeMiB}M`, image]);
  const { stdout } = await execa("losetup", [
    "--find",
    "--show",
    ...(options.readOnly ? ["--read-only"] : []),
    image,
  ]);
  const device = stdout.trim();
  const mountpoint = join(dir, "mnt");
  let mounted = false;
  return {
    device,
    async mount() {
      await execa("mkfs.ext4", ["-q", device]);
      await execa("mkdir", ["-p", mountpoint]);
      await execa("mount", [device, mountpoint]);
      mounted = true;
      return mountpoint;
    },
    async detach() {
      if (mounted) await execa("umount", [mountpoint], { reject: false });
      await execa("losetup", ["-d", device], { reject: false });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
