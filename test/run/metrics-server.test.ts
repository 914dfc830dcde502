/** The live metrics endpoint's own behaviour: the addresses it takes, a taken port, what it answers. */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { METRICS_PATH, parseMetricsAddress, startMetricsEndpoint } from "../../src/run/metrics-server.js";

describe("--metrics ADDR", () => {
  it("takes a port (on loopback), HOST:PORT and [IPv6]:PORT; anything else is refused with what is valid", () => {
    expect(parseMetricsAddress("9464")).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(parseMetricsAddress("0.0.0.0:9464")).toEqual({ host: "0.0.0.0", port: 9464 });
    expect(parseMetricsAddress("[::1]:9464")).toEqual({ host: "::1", port: 9464 });
    expect(parseMetricsAddress("metrics.local:80")).toEqual({ host: "metrics.local", port: 80 });
    for (const bad of ["", "65536", "host:", ":9464", "::1:9464", "9464/metrics", "a b:1"])
      expect(() => parseMetricsAddress(bad), bad).toThrow(
        /expected a port \(9464, on loopback\) or an address and port \(127\.0\.0\.1:9464, \[::1\]:9464, 0\.0\.0\.0:9464\)/,
      );
  });

  it("a taken port is said before the run starts", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      await expect(startMetricsEndpoint(`127.0.0.1:${port}`)).rejects.toThrow(
        new RegExp(
          `--metrics 127\\.0\\.0\\.1:${port}: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`,
        ),
      );
    } finally {
      taken.close();
    }
  });

  it("serves the exposition at /metrics (GET and HEAD), 404 elsewhere, 405 for other methods", async () => {
    const endpoint = await startMetricsEndpoint("0");
    try {
      expect(endpoint.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${METRICS_PATH}$`));
      const got = await fetch(endpoint.url);
      expect(got.status).toBe(200);
      expect(got.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      const body = await got.text();
      expect(body).toMatch(/^# HELP benchspec_/m);
      const head = await fetch(endpoint.url, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get("content-length"))).toBe(Buffer.byteLength(body));
      expect(await head.text()).toBe("");
      expect((await fetch(endpoint.url.replace(METRICS_PATH, "/other"))).status).toBe(404);
      const post = await fetch(endpoint.url, { method: "POST", body: "x" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    } finally {
      await endpoint.close();
    }
  });
});
