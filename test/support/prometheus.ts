/**
 * A Prometheus of the test's own (Debian's package) on loopback, scraping given targets every second. Once
 * a run's endpoint is gone its series are stale: an instant query finds nothing; `last(selector)` asks for
 * the last value scraped (the run lingers a few scrapes after its last row).
 */
import { execa } from "execa";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { freePort } from "../../src/platform/ports.js";

export interface Prometheus {
  /** One instant query of the HTTP API: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The sum of a query's values. */
  total(promql: string): Promise<number>;

  stop(): Promise<void>;
}

export async function startPrometheus(dir: string, targets: readonly string[]): Promise<Prometheus> {
  const port = await freePort();
  const config = join(dir, "prometheus.yml");
  await writeFile(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: benchspec",
      "    static_configs:",
      `      - targets: [${targets.map((t) => JSON.stringify(t)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  await mkdir(join(dir, "tsdb"), { recursive: true });
  const server = execa(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { reject: false, all: true },
  );
  const api = `http://127.0.0.1:${port}`;
  // Ready before the run starts: a Prometheus still opening its database scrapes nothing of a short run.
  const deadline = Date.now() + 60_000;
  // And scraping every target (down until the run listens): Prometheus applies its targets a few seconds
  // after it is ready, which missed a run's first repetitions.
  const scraping = async () => {
    const response = await fetch(`${api}/api/v1/targets`);
    if (!response.ok) return false;
    const body = (await response.json()) as { data: { activeTargets: { lastScrape: string }[] } };
    const active = body.data.activeTargets;
    return active.length === targets.length && active.every((t) => !t.lastScrape.startsWith("0001-"));
  };
  for (;;) {
    const ready = await fetch(`${api}/-/ready`)
      .then((r) => r.ok && scraping())
      .catch(() => false);
    if (ready) break;
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`prometheus did not get ready: ${String((await server).all)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const query = async (promql: string) => {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      status: string;
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    expect(body.status, promql).toBe("success");
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  const total = async (promql: string) => (await query(promql)).reduce((sum, r) => sum + r.value, 0);
  return {
    query,
    total,
    async stop() {
      server.kill("SIGTERM");
      await server;
    },
  };
}

/** The last value each series had within the last 10 minutes, stale or not. */
export const last = (selector: string) => `last_over_time(${selector}[10m])`;
