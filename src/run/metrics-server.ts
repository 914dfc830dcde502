/**
 * `benchspec run --metrics ADDR`: the run's live metrics (results/live-metrics.ts) served over HTTP at
 * /metrics while the run lasts, for Prometheus (or anything that reads its text format) to scrape. Off by
 * default; on loopback unless the address names another interface. It listens before the run starts, so a
 * taken port is said at once, and stops when the run ends (after `--metrics-linger`, so a last scrape sees
 * the last repetition).
 */
import { createServer, type Server } from "node:http";
import { hostname } from "node:os";
import type { Case } from "../plan/types.js";
import { BenchspecError } from "../platform/errors.js";
import { LiveMetrics, type CaseLabels } from "../results/live-metrics.js";
import type { RunObserver } from "../execution/observer.js";

export const METRICS_PATH = "/metrics";
const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsEndpoint {
  /** Where it listens, as a URL of /metrics. */
  url: string;
  observer: RunObserver;
  close(lingerSeconds?: number): Promise<void>;
}

/** `PORT`, `HOST:PORT` or `[IPv6]:PORT`; a bare port is on loopback. */
export function parseMetricsAddress(text: string): { host: string; port: number } {
  const match = /^(?:(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new BenchspecError(
      "usage",
      `--metrics ${JSON.stringify(text)}: expected a port (9464, on loopback) or an address and port (127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464)`,
    );
  return { host: match[1] ?? match[2] ?? "127.0.0.1", port };
}

const labelsOf = (c: Case): CaseLabels => ({
  case: c.id,
  workload: c.workload,
  target: c.target,
  engine: c.engine,
  op: c.op,
});

export async function startMetricsEndpoint(address: string): Promise<MetricsEndpoint> {
  const { host, port } = parseMetricsAddress(address);
  const metrics = new LiveMetrics(hostname());
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path !== METRICS_PATH) {
      response.writeHead(404, { "content-type": "text/plain" }).end(`benchspec serves ${METRICS_PATH}\n`);
      return;
    }
    const body = metrics.render();
    response.writeHead(200, { "content-type": CONTENT_TYPE, "content-length": Buffer.byteLength(body) });
    response.end(request.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new BenchspecError(
          "usage",
          `--metrics ${address}: cannot listen on ${host}:${port} (${error.code ?? error.message})`,
        ),
      ),
    );
    server.listen(port, host, resolve);
  });
  const bound = server.address();
  const shown = typeof bound === "object" && bound ? bound : { address: host, port };
  const hostPart = shown.address.includes(":") ? `[${shown.address}]` : shown.address;
  return {
    url: `http://${hostPart}:${shown.port}${METRICS_PATH}`,
    observer: {
      caseStart: (c, _position, total) => metrics.caseStart(labelsOf(c), total),
      repetitionStart: (c, repetition, warmup) => metrics.repetitionStart(repetition, warmup),
      roundStart: (workload, round, max) => metrics.roundStart(workload, round, max),
      repetitionDone: (c, row) => metrics.repetitionDone(labelsOf(c), row),
      caseDone: () => metrics.caseDone(),
      message: () => {},
    },
    async close(lingerSeconds = 0) {
      if (lingerSeconds > 0) await new Promise((resolve) => setTimeout(resolve, lingerSeconds * 1000));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Both observers hear everything. */
export const bothObservers = (a: RunObserver, b: RunObserver): RunObserver => ({
  caseStart: (...args) => (a.caseStart(...args), b.caseStart(...args)),
  repetitionStart: (...args) => (a.repetitionStart?.(...args), b.repetitionStart?.(...args)),
  roundStart: (...args) => (a.roundStart?.(...args), b.roundStart?.(...args)),
  repetitionDone: (...args) => (a.repetitionDone(...args), b.repetitionDone(...args)),
  caseDone: (...args) => (a.caseDone(...args), b.caseDone(...args)),
  message: (...args) => (a.message(...args), b.message(...args)),
});
