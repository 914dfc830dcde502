/** A Prometheus of the test's own (Debian's package) on loopback, scraping given targets every second. */
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
  const query = async (promql: string) => {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      status: string;
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    expect(body.status, promql).toBe("success");
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  return {
    query,
    total: async (promql) => (await query(promql)).reduce((sum, r) => sum + r.value, 0),
    async stop() {
      server.kill("SIGTERM");
      await server;
    },
  };
}
