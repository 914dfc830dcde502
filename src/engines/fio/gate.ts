/**
 * The start gate of a fio repetition. fio runs a job's `exec_prerun` once the job is set up (its files laid
 * out, its process forked) and just before its first I/O; the prerun connects to this gate over the
 * loopback and blocks until it reads a line. Armed: every job has connected. Opened: each gets its line, and
 * their I/O starts at once. Closed without opening: each prerun fails, and fio ends its jobs unrun.
 * Any local process can connect to a loopback port, so a prerun first says a token it has from fio's
 * environment (readable only by the same user, unlike a command line): other connections are dropped.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface FioGate {
  /** fio's exec_prerun command (run through sh; /dev/tcp is bash's). */
  prerun: string;
  /** What fio's environment must hold for the prerun to pass the gate. */
  env: Record<string, string>;
  /** Resolves once every job waits at the gate. */
  armed: Promise<void>;
  open(): void;
  close(): void;
}

const TOKEN_VARIABLE = "BENCHSPEC_GATE_TOKEN";

export async function fioGate(jobs: number): Promise<FioGate> {
  const waiting: Socket[] = [];
  let allThere!: () => void;
  const armed = new Promise<void>((resolve) => (allThere = resolve));
  const token = randomBytes(16).toString("hex");
  const server = createServer((socket) => {
    socket.on("error", () => {});
    let said = "";
    const hear = (chunk: Buffer) => {
      said += chunk.toString("latin1");
      if (!said.includes("\n") && said.length <= token.length) return;
      socket.off("data", hear);
      if (said !== `${token}\n`) return socket.destroy();
      waiting.push(socket);
      if (waiting.length === jobs) allThere();
    };
    socket.on("data", hear);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    prerun: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo "$${TOKEN_VARIABLE}" >&3 && read -r _ <&3'`,
    env: { [TOKEN_VARIABLE]: token },
    armed,
    open() {
      for (const socket of waiting) socket.end("go\n");
      server.close();
    },
    close() {
      for (const socket of waiting) socket.destroy();
      server.close();
    },
  };
}
