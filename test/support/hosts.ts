/**
 * Real hosts for multi-host tests, made of Linux namespaces on this machine by scripts/hosts/hosts.sh (needs
 * root): each host has its own address, hostname, sshd (and fio server, if asked), PID space and storage at `privatePath`, and shares
 * the root file system (node, this checkout). Every startHosts() claims its own slot (bridge, subnet, state
 * directory), so test files running in parallel never share hosts; a slot whose test process died without
 * stop() is torn down by the next startHosts().
 */
import { readFile, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { minioWithBucket } from "../engines/support.js";

const SCRIPT = join(import.meta.dirname, "..", "..", "scripts", "hosts", "hosts.sh");

export interface HostsOptions {
  /** Client hosts h1..hN (default 3). */
  count?: number;
  /** A Slurm cluster: slurmctld on `head`, a slurmd on every host (node names h1..hN). */
  slurm?: boolean;
  /** A file system shared by every host at `sharedPath` (sshfs from `head`'s storage). */
  shared?: boolean;
  /** Size of each host's tmpfs at `privatePath` (default 256m; memory is used only as files fill it). */
  size?: string;
  /** `fio --server` on every client host, on its address and this port; it goes with the host. */
  fioServer?: number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface TestHost {
  name: string;
  address: string;
  /** This machine's PID of the host's PID 1; `nsenter --target` it to act on the host. */
  pid: number;
  /** Runs a command on the host directly (nsenter, not ssh), e.g. to inspect or break what runs there. */
  exec(file: string, args?: string[], options?: { input?: string; cwd?: string }): Promise<ExecResult>;
  /** The host's processes whose command line matches, with this machine's PIDs (ready for process.kill). */
  processes(pattern: RegExp): Promise<{ pid: number; command: string }[]>;
}

export interface Hosts {
  /** The slot's state directory (keys, configurations, daemons' logs). */
  dir: string;
  hosts: TestHost[];
  /** The host serving Slurm's controller and the shared file system; present with `slurm` or `shared`. */
  head?: TestHost;
  /** `ssh -F sshConfig h2 …` reaches h2 as root without prompts. */
  sshConfig: string;
  /**
   * Environment for processes that should see the hosts: PATH starts with an `ssh` that uses sshConfig, so
   * code under test running plain `ssh h2 …` works; SLURM_CONF is set with `slurm`.
   */
  env: Record<string, string>;
  slurmConf?: string;
  /** The same path on every host, a different file system on each. */
  privatePath: string;
  /** The same path on every host, one file system for all; present with `shared`. */
  sharedPath?: string;
  /** The port of every client host's fio server; present with `fioServer`. */
  fioPort?: number;
  host(name: string): TestHost;
  /** Tears the hosts down: every process on them, their namespaces, mounts, interfaces and the state directory. */
  stop(): Promise<void>;
}

interface RigHost {
  name: string;
  address: string;
  pid: number;
}

interface Rig {
  slot: number;
  dir: string;
  sshConfig: string;
  bin: string;
  privatePath: string;
  sharedPath: string | null;
  slurmConf: string | null;
  fioPort: number | null;
  head: RigHost | null;
  hosts: RigHost[];
}

export async function startHosts(options: HostsOptions = {}): Promise<Hosts> {
  const args = [
    "up",
    "--slot",
    "auto",
    "--owner",
    String(process.pid),
    "--count",
    String(options.count ?? 3),
  ];
  if (options.slurm) args.push("--slurm");
  if (options.shared) args.push("--shared");
  if (options.size) args.push("--size", options.size);
  if (options.fioServer !== undefined) args.push("--fio-server", String(options.fioServer));
  const { stdout } = await execa(SCRIPT, args);
  const rig = JSON.parse(await readFile(join(stdout.trim(), "rig.json"), "utf8")) as Rig;

  const hosts = rig.hosts.map(testHost);
  const env: Record<string, string> = { PATH: `${rig.bin}:${process.env.PATH ?? ""}` };
  if (rig.slurmConf) env.SLURM_CONF = rig.slurmConf;
  return {
    dir: rig.dir,
    hosts,
    head: rig.head ? testHost(rig.head) : undefined,
    sshConfig: rig.sshConfig,
    env,
    slurmConf: rig.slurmConf ?? undefined,
    privatePath: rig.privatePath,
    sharedPath: rig.sharedPath ?? undefined,
    fioPort: rig.fioPort ?? undefined,
    host(name) {
      const found = hosts.find((host) => host.name === name);
      if (!found) throw new Error(`no host ${name} (hosts: ${hosts.map((host) => host.name).join(", ")})`);
      return found;
    },
    async stop() {
      await execa(SCRIPT, ["down", "--slot", String(rig.slot)]);
    },
  };
}

function testHost({ name, address, pid }: RigHost): TestHost {
  return {
    name,
    address,
    pid,
    async exec(file, args = [], { input, cwd = "/" } = {}) {
      const namespaces = ["--net", "--uts", "--ipc", "--mount", "--pid"];
      const result = await execa(
        "nsenter",
        ["--target", String(pid), ...namespaces, `--wd=${cwd}`, "--", file, ...args],
        {
          input: input ?? "",
          reject: false,
        },
      );
      return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1 };
    },
    async processes(pattern) {
      const hostPidNamespace = await readlink(`/proc/${pid}/ns/pid`);
      const found: { pid: number; command: string }[] = [];
      for (const entry of await readdir("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        // A process may exit between the listing and these reads.
        const namespace = await readlink(`/proc/${entry}/ns/pid`).catch(() => "");
        if (namespace !== hostPidNamespace) continue;
        const command = (await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => ""))
          .replaceAll("\0", " ")
          .trim();
        if (pattern.test(command)) found.push({ pid: Number(entry), command });
      }
      return found;
    },
  };
}

/** A MinIO the hosts reach, with `bucket` made: on their bridge, whose own address (.1) is this machine's. */
export const minioForHosts = (rig: Hosts, bucket: string): Promise<MinioServer> =>
  minioWithBucket(bucket, { host: rig.hosts[0]!.address.replace(/\.\d+$/, ".1") });

/**
 * Shapes what the host sends out of its NIC with `tc tbf`: at most `rate` (tc's words: 50mbit, 8000000),
 * bursts of `burst`, and a queue that holds `latency` of it before dropping.
 */
export async function shapeEgress(
  host: TestHost,
  { rate, burst, latency }: { rate: string; burst: string; latency: string },
): Promise<void> {
  const tc = await host.exec("tc", [
    ...["qdisc", "add", "dev", "eth0", "root", "tbf"],
    ...["rate", rate, "burst", burst, "latency", latency],
  ]);
  if (tc.exitCode !== 0) throw new Error(`tc on ${host.name}: ${tc.stderr}`);
}
