/**
 * The start gate of a fio repetition. fio runs a job's `exec_prerun` once the job is set up (its files laid
 * out, its process forked) and just before its first I/O; the prerun connects to this gate over the
 * loopback and blocks until it reads a line. Armed: every job has connected. Opened: each gets its line, and
 * their I/O starts at once. Closed without opening: each prerun fails, and fio ends its jobs unrun.
 */
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface FioGate {
  /** fio's exec_prerun command (run through sh; /dev/tcp is bash's). */
  prerun: string;
  /** Resolves once every job waits at the gate. */
  armed: Promise<void>;
  open(): void;
  close(): void;
}

export async function fioGate(jobs: number): Promise<FioGate> {
  const waiting: Socket[] = [];
  let allThere!: () => void;
  const armed = new Promise<void>((resolve) => (allThere = resolve));
  const server = createServer((socket) => {
    socket.on("error", () => {});
    waiting.push(socket);
    if (waiting.length === jobs) allThere();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    prerun: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && read -r _ <&3'`,
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
