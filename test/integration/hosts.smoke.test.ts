/**
 * The multi-host test rig (test/support/hosts.ts): three hosts reached by ssh and by Slurm, each with its own
 * hostname and storage, one file system shared by all, and stop() leaving nothing behind.
 */
import { existsSync } from "node:fs";
import { readFile, readdir, readlink } from "node:fs/promises";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startHosts, type Hosts } from "../support/hosts.js";
import { ROOT } from "../support/spec.js";

describe("test hosts", () => {
  let rig: Hosts;
  const ssh = (host: string, command: string) => execa("ssh", [host, command], { env: rig.env });

  beforeAll(async () => {
    rig = await startHosts({ count: 3, slurm: true, shared: true });
  });
  afterAll(() => rig?.stop());

  it("answers ssh on each host with that host's name, through plain `ssh` given the rig's PATH", async () => {
    expect(rig.hosts.map((host) => [host.name, host.address])).toEqual([
      ["h1", expect.stringMatching(/^10\.77\.\d+\.11$/)],
      ["h2", expect.stringMatching(/^10\.77\.\d+\.12$/)],
      ["h3", expect.stringMatching(/^10\.77\.\d+\.13$/)],
    ]);
    for (const host of rig.hosts) expect((await ssh(host.name, "hostname")).stdout).toBe(host.name);
    const { stdout } = await execa("ssh", ["-F", rig.sshConfig, "h2", "hostname"]);
    expect(stdout).toBe("h2");
  });

  it("gives each host its own storage at the same path", async () => {
    const marker = `${rig.privatePath}/marker`;
    await ssh("h1", `echo written-on-h1 > ${marker}`);
    expect((await ssh("h1", `cat ${marker}`)).stdout).toBe("written-on-h1");
    expect((await ssh("h2", `test -e ${marker} && echo present || echo absent`)).stdout).toBe("absent");
    expect((await rig.host("h3").exec("ls", ["-A", rig.privatePath])).stdout).toBe("");
    expect((await ssh("h2", `findmnt -rn -o FSTYPE,SOURCE ${rig.privatePath}`)).stdout).toBe(
      "tmpfs benchspec-h2",
    );
    expect(existsSync(rig.privatePath)).toBe(false); // not on this machine's own file system
  });

  it("runs node and this checkout on the hosts", async () => {
    const version = (await execa("node", ["bin/benchspec.js", "--version"], { cwd: ROOT })).stdout;
    expect((await ssh("h3", `node ${ROOT}/bin/benchspec.js --version`)).stdout).toBe(version);
  });

  it("runs srun -N3 on h1..h3, each task on its own host's storage, with stdin broadcast to every task", async () => {
    const srun = (args: string[], input = "") => execa("srun", args, { env: rig.env, input });
    const names = await srun(["-N3", "--label", "hostname"]);
    expect(names.stdout.split("\n").sort()).toEqual(["0: h1", "1: h2", "2: h3"]);

    await ssh("h2", `touch ${rig.privatePath}/only-on-h2`);
    const storage = await srun([
      "-N3",
      "--label",
      "bash",
      "-c",
      `ls ${rig.privatePath} | grep only || echo none`,
    ]);
    expect(storage.stdout.split("\n").sort()).toEqual(["0: none", "1: only-on-h2", "2: none"]);

    const echo = `while read -r line; do echo "$(hostname) $line"; done`;
    const broadcast = await srun(["-N3", "--label", "--input=all", "bash", "-c", echo], "ping\npong\n");
    expect(broadcast.stdout.split("\n").sort()).toEqual([
      "0: h1 ping",
      "0: h1 pong",
      "1: h2 ping",
      "1: h2 pong",
      "2: h3 ping",
      "2: h3 pong",
    ]);
  });

  it("shares one file system among all hosts, served from head", async () => {
    const file = `${rig.sharedPath}/from-h1`;
    await ssh("h1", `echo shared > ${file}`);
    expect((await ssh("h2", `cat ${file}`)).stdout).toBe("shared");
    await ssh("h3", `echo appended-on-h3 >> ${file}`);
    expect((await ssh("h1", `cat ${file}`)).stdout).toBe("shared\nappended-on-h3");
    expect((await rig.head!.exec("cat", [`${rig.privatePath}/from-h1`])).stdout).toBe(
      "shared\nappended-on-h3",
    );
  });

  it("finds a host's processes and kills one: that host's sshd goes, the others' stay", async () => {
    const listener = /^sshd: .*\[listener\]/;
    const [sshd, ...others] = await rig.host("h2").processes(listener);
    expect(others).toEqual([]);
    expect(sshd!.command).toContain("/hosts/h2/sshd_config");
    process.kill(sshd!.pid, "SIGKILL");
    // Its listening socket closes only once the process is gone; a connection before that is reset instead.
    await vi.waitFor(() => expect(existsSync(`/proc/${sshd!.pid}`)).toBe(false));
    const refused = await execa("ssh", ["h2", "true"], { env: rig.env, reject: false });
    expect(refused.exitCode).toBe(255);
    expect(refused.stderr, refused.stderr).toContain("Connection refused");
    expect((await ssh("h1", "hostname")).stdout).toBe("h1");
    expect(await rig.host("h1").processes(listener)).toHaveLength(1);
  });

  it("stop() leaves no process, namespace, interface, mount or state behind", async () => {
    const namespaces = new Set<string>();
    for (const host of [...rig.hosts, rig.head!]) {
      for (const kind of ["net", "mnt", "uts", "pid"])
        namespaces.add(await readlink(`/proc/${host.pid}/ns/${kind}`));
    }
    const slot = /\/(\d+)$/.exec(rig.dir)![1]!;
    await rig.stop();

    const remaining = async () => {
      const processes: string[] = [];
      for (const entry of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
        const command = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
        if (command.includes(rig.dir)) processes.push(command.replaceAll("\0", " "));
        for (const kind of ["net", "mnt", "uts", "pid"]) {
          const namespace = await readlink(`/proc/${entry}/ns/${kind}`).catch(() => "");
          if (namespaces.has(namespace)) processes.push(`${entry} in ${namespace}`);
        }
      }
      return processes;
    };
    // A killed process is gone once the kernel has torn it down, which on two busy cores can take a moment.
    let processes = await remaining();
    for (let wait = 0; processes.length > 0 && wait < 50; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      processes = await remaining();
    }
    expect(processes).toEqual([]);
    const links = (await execa("ip", ["-o", "link", "show"])).stdout;
    expect(links).not.toMatch(new RegExp(`: (bsbr${slot}|bs${slot}(h\\d+|head))[@:]`));
    const mounts = await readFile("/proc/self/mountinfo", "utf8");
    expect(mounts).not.toContain("benchspec");
    expect(existsSync(rig.dir)).toBe(false);
    await rig.stop(); // idempotent
  });
});
