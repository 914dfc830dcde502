import net from "node:net";

/**
 * A TCP port on `host` that was free a moment ago (the kernel picks it by binding port 0).
 * Another process may grab it before the caller binds it; launched servers fail loudly if that happens.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const [port] = await freePorts([host]);
  return port!;
}

/**
 * Ports free a moment ago, one per host given, all different: each is held until all are bound (a port
 * closed before the next is asked for may be handed out again, e.g. as a server's second listener).
 */
export async function freePorts(hosts: readonly string[]): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (const host of hosts) {
      // Another address may be handed a number already taken on the first: held, and asked again.
      for (;;) {
        const server = net.createServer();
        server.unref();
        servers.push(server);
        const port = await listenOnAnyPort(server, host);
        if (ports.includes(port)) continue;
        ports.push(port);
        break;
      }
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

function listenOnAnyPort(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (typeof address === "object" && address !== null) resolve(address.port);
      else reject(new Error("could not read the bound port"));
    });
  });
}
