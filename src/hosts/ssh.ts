/**
 * Hosts reached with the user's own OpenSSH client: their ssh config, keys and known_hosts. BatchMode, so
 * a host that would ask for a password or a host-key confirmation fails at once instead of waiting for a
 * terminal; keep-alives, so a host that vanishes is noticed by ssh too. Nothing listens on a port of ours:
 * the worker talks over the session's stdin and stdout. The remote command holds no secret (ps shows it).
 */
import { execa } from "execa";
import { randomBytes } from "node:crypto";
import { shQuote } from "../emit/writer.js";
import type { GroupOf, HostTransport } from "./types.js";
import { startWorkerProcess } from "./worker-process.js";

const DEFAULT_CONNECT_TIMEOUT_S = 10;

/** ssh's arguments up to the remote command: the user's config, no prompts, a dead host noticed. */
const sshArgs = (group: GroupOf<"ssh">, host: string) => [
  ...(group.sshConfig !== undefined ? ["-F", group.sshConfig] : []),
  "-o",
  "BatchMode=yes",
  "-o",
  `ConnectTimeout=${Math.ceil(group.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_S)}`,
  "-o",
  "ServerAliveInterval=5",
  "-o",
  "ServerAliveCountMax=3",
  // No terminal: the worker's stdout carries messages byte for byte, and ends with the session.
  "-T",
  "--",
  host,
];

export const sshTransport: HostTransport<"ssh"> = {
  hostNames: (group) => group.hosts,
  namedByWorkers: false,
  start(group, command, events, env) {
    // In the remote command as a shell comment: what finds the command on the host if ssh had to be killed.
    const mark = `benchspec-worker-${randomBytes(8).toString("hex")}`;
    const processes = group.hosts.map((host, index) =>
      startWorkerProcess(
        "ssh",
        [...sshArgs(group, host), `${command} worker --index ${index} # ${mark}`],
        (line) => events.line(line, index),
        (why) => events.exit(index, why),
        env,
      ),
    );
    return {
      write: (index, line) => processes[index]!.write(line),
      stderr: (index) => processes[index]!.stderr(),
      stop: async (graceMs) => {
        await Promise.all(
          processes.map(async (p, index) => {
            // A worker that ended by itself took its command along. A killed ssh leaves the remote command
            // running until it reads its stdin (a command still starting — `sleep`, a download — never
            // does): it is ended over a second connection, found by its mark (bounded, best effort).
            if (!(await p.stop(graceMs))) return;
            await execa("ssh", [...sshArgs(group, group.hosts[index]!), `pkill -f -- ${shQuote(mark)}`], {
              reject: false,
              stdin: "ignore",
              timeout: 10_000,
            });
          }),
        );
      },
    };
  },
  async removeDirectory(group, host, path) {
    const result = await execa("ssh", [...sshArgs(group, host), `rm -rf -- ${shQuote(path)}`], {
      reject: false,
      stdin: "ignore",
      timeout: 60_000,
    });
    if (result.exitCode !== 0)
      throw new Error(`ssh ${host}: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`);
  },
};
