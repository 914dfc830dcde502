/**
 * Hosts reached with the user's own OpenSSH client: their ssh config, keys and known_hosts. BatchMode, so
 * a host that would ask for a password or a host-key confirmation fails at once instead of waiting for a
 * terminal; keep-alives, so a host that vanishes is noticed by ssh too. Nothing listens on a port of ours:
 * the worker talks over the session's stdin and stdout. The remote command holds no secret (ps shows it).
 */
import type { HostTransport } from "./types.js";
import { startWorkerProcess } from "./worker-process.js";

const DEFAULT_CONNECT_TIMEOUT_S = 10;

export const sshTransport: HostTransport<"ssh"> = {
  hostNames: (group) => group.hosts,
  namedByWorkers: false,
  start(group, command, events) {
    const processes = group.hosts.map((host, index) =>
      startWorkerProcess(
        "ssh",
        [
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
          `${command} worker --index ${index}`,
        ],
        (line) => events.line(line, index),
        (why) => events.exit(index, why),
      ),
    );
    return {
      write: (index, line) => processes[index]!.write(line),
      stderr: (index) => processes[index]!.stderr(),
      stop: async (graceMs) => {
        await Promise.all(processes.map((p) => p.stop(graceMs)));
      },
    };
  },
};
