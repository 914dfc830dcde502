import net from "node:net";

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it by binding port 0).
 * Another process may grab it before the caller binds it; launched servers fail loudly if that happens.
 */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => (port ? resolve(port) : reject(new Error("could not read the bound port"))));
    });
  });
}
