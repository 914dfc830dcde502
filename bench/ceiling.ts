/**
 * The client-only ceiling of a GET in Node on this machine, for the S3 table: the same objects, concurrency
 * and server as the engine's GET, read over raw `node:net` sockets with one static read buffer per socket
 * (`onread`: no allocation per read, no HTTP module, no streams) and presigned URLs (s5cmd presign), so only
 * the kernel and the server remain. The gap between this and the engine is what Node's HTTP stack costs.
 */
import net from "node:net";
import { performance } from "node:perf_hooks";
import { GiB } from "./config.js";
import { s5cmdBinary } from "./paths.js";
import { timed } from "./proc.js";
import type { Servers } from "./servers.js";
import { BUCKET } from "./servers.js";

export interface CeilingSample {
  throughput: number;
  cpuPerGiB: number;
}

/** Uploads `files` under a prefix of its own, reads them `rounds` times at `concurrency`, deletes them. */
export async function rawGetCeiling(
  servers: Servers,
  files: readonly string[],
  concurrency: number,
  rounds: number,
): Promise<CeilingSample[]> {
  const s5cmd = s5cmdBinary();
  const endpoint = ["--endpoint-url", servers.minio.endpoint];
  const env = servers.env;
  const prefix = `s3://${BUCKET}/ceiling`;
  await timed(s5cmd, [...endpoint, "cp", `${files[0]!.replace(/[^/]+$/, "")}*`, `${prefix}/`], {
    env,
    discardStdout: true,
  });
  try {
    const urls: URL[] = [];
    for (const file of files) {
      const key = `${prefix}/${file.split("/").at(-1)}`;
      urls.push(
        new URL((await timed(s5cmd, [...endpoint, "presign", "--expire", "1h", key], { env })).stdout.trim()),
      );
    }
    const samples: CeilingSample[] = [];
    for (let round = 0; round < rounds; round++) {
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      let bytes = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < urls.length) {
            const n = await rawGet(urls[next++]!);
            bytes += n;
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      const used = process.cpuUsage(cpu);
      samples.push({
        throughput: bytes / seconds,
        cpuPerGiB: (used.user + used.system) / 1e6 / (bytes / GiB),
      });
    }
    return samples;
  } finally {
    await timed(s5cmd, [...endpoint, "rm", `${prefix}/*`], { env, discardStdout: true }).catch(() => {});
  }
}

/** GET of a presigned URL over a fresh socket; resolves with the body's length (Content-Length bodies only). */
function rawGet(url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    let head = "";
    let remaining = -1;
    let total = 0;
    const socket = net.connect({
      host: url.hostname,
      port: Number(url.port),
      onread: {
        buffer: Buffer.allocUnsafe(2 ** 20),
        callback(n: number, buffer: Uint8Array) {
          let body = n;
          if (remaining < 0) {
            head += Buffer.from(buffer.buffer, buffer.byteOffset, n).toString("latin1");
            const end = head.indexOf("\r\n\r\n");
            if (end < 0) return true;
            const status = /^HTTP\/1\.1 (\d+)/.exec(head)?.[1];
            const length = /\r\ncontent-length: *(\d+)/i.exec(head.slice(0, end))?.[1];
            if (status !== "200" || length === undefined) {
              socket.destroy();
              reject(new Error(`raw GET ${url.pathname}: ${head.split("\r\n")[0]}`));
              return false;
            }
            remaining = Number(length);
            body = head.length - end - 4;
          }
          remaining -= body;
          total += body;
          if (remaining <= 0) {
            socket.destroy();
            resolve(total);
          }
          return true;
        },
      },
    } as net.NetConnectOpts);
    socket.once("connect", () =>
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`),
    );
    socket.once("error", reject);
    socket.setTimeout(120_000, () => socket.destroy(new Error(`raw GET ${url.pathname}: timed out`)));
  });
}
