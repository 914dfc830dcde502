import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { freePort } from "../../src/platform/ports.js";
import { groupAlive, startGroup } from "../../src/platform/process.js";
import { BenchspecError } from "../../src/platform/errors.js";
import { waitForHttp } from "../../src/platform/wait.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(read: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("startGroup", () => {
  it("runs the child as leader of its own process group", async () => {
    const child = await startGroup("sleep", ["30"]);
    try {
      const stat = await import("node:fs/promises").then((fs) =>
        fs.readFile(`/proc/${child.pid}/stat`, "utf8"),
      );
      // Field 5 of /proc/PID/stat is the process-group id (after "pid (comm) state ppid").
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      expect(pgrp).toBe(child.pid);
      expect(pgrp).not.toBe(process.pid);
    } finally {
      await child.stop();
    }
  });

  it("stop() kills grandchildren too, escalating to SIGKILL when SIGTERM is ignored", async () => {
    // Ignored signals are inherited, so both bash and its background sleep ignore SIGTERM.
    const child = await startGroup("bash", ["-c", 'trap "" TERM; sleep 300 & echo "grandchild=$!"; wait'], {
      stopTimeoutMs: 300,
    });
    const grandchild = await until(() => /grandchild=(\d+)/.exec(child.output())?.[1]).then(Number);
    expect(alive(grandchild)).toBe(true);
    const started = Date.now();
    await child.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(alive(child.pid)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    expect(groupAlive(child.pid)).toBe(false);
    expect((await child.exited).signal).toBe("SIGKILL");
  });

  it("stop() of a cooperative child returns as soon as it exits on SIGTERM", async () => {
    const child = await startGroup("sleep", ["30"], { stopTimeoutMs: 20_000 });
    const started = Date.now();
    await child.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await child.exited).signal).toBe("SIGTERM");
    await child.stop(); // idempotent
  });

  it("rejects when the binary does not exist", async () => {
    await expect(startGroup("/nonexistent/benchspec-tool", [])).rejects.toThrow(/could not start/);
  });
});

describe("waitForHttp", () => {
  it("fails early with the server's output when it exits before answering", async () => {
    const port = await freePort();
    const child = await startGroup("bash", ["-c", "echo 'bind: address in use' >&2; exit 3"], {
      label: "fake",
    });
    const error = await waitForHttp(`http://127.0.0.1:${port}/`, child, { timeoutMs: 30_000 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(BenchspecError);
    expect(error.code).toBe("server-start");
    expect(error.message).toMatch(/fake exited \(code 3\)/);
    expect(error.message).toContain("bind: address in use");
  });

  it("waits until the URL answers 200", async () => {
    const port = await freePort();
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(hits < 3 ? 503 : 200).end();
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    const child = await startGroup("sleep", ["30"]);
    try {
      await waitForHttp(`http://127.0.0.1:${port}/`, child, { intervalMs: 10 });
      expect(hits).toBe(3);
    } finally {
      await child.stop();
      server.close();
    }
  });

  it("times out with the last status it saw", async () => {
    const port = await freePort();
    const server = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    const child = await startGroup("sleep", ["30"], { label: "slow" });
    try {
      await expect(
        waitForHttp(`http://127.0.0.1:${port}/`, child, { timeoutMs: 300, intervalMs: 20 }),
      ).rejects.toThrow(/slow did not answer GET .* within 300 ms \(last: HTTP 503\)/);
    } finally {
      await child.stop();
      server.close();
    }
  });
});

describe("freePort", () => {
  it("returns a loopback port that can be bound", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    server.close();
  });
});
