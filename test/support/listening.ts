/**
 * The TCP addresses a process listens on, read from /proc (Linux): its socket fds' inodes matched against
 * the kernel's socket tables. Lets tests prove a launched server binds loopback only, whatever its config says.
 */
import { readFile, readdir, readlink } from "node:fs/promises";

export async function listeningAddresses(pid: number): Promise<string[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const addresses: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = (await readFile(`/proc/${pid}/net/${table}`, "utf8")).trim().split("\n").slice(1);
    for (const line of lines) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === "0A" && inode && inodes.has(inode) && local) addresses.push(decode(local));
    }
  }
  return addresses.sort();
}

/** "0100007F:1F90" → "127.0.0.1:8080"; IPv6 words are little-endian 32-bit groups → "[::1]:8080". */
function decode(hexAddress: string): string {
  const [ip = "", port = ""] = hexAddress.split(":");
  const portNumber = parseInt(port, 16);
  if (ip.length === 8) {
    return `${Buffer.from(ip, "hex").reverse().join(".")}:${portNumber}`;
  }
  const bytes = Buffer.concat((ip.match(/.{8}/g) ?? []).map((word) => Buffer.from(word, "hex").reverse()));
  const groups = (bytes.toString("hex").match(/.{4}/g) ?? []).map((group) => group.replace(/^0+(?=.)/, ""));
  const text = groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
  return `[${text}]:${portNumber}`;
}
