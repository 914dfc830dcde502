import { describe, expect, it } from "vitest";
import { describeError, itemAt, runLoad } from "../../src/engines/load/load.js";
import { bytesWithin, measure } from "../../src/engines/load/measure.js";
import { resolveThreads } from "../../src/engines/load/threads.js";
import { HttpParseError } from "../../src/engines/http/response-parser.js";
import { marked } from "../../src/platform/errors.js";

describe("describeError", () => {
  it("keeps the error's name, code and HTTP status on one line", () => {
    const error = Object.assign(new Error("connect ECONNREFUSED\n 127.0.0.1:9000"), { code: "ECONNREFUSED" });
    expect(describeError(error)).toBe("connect ECONNREFUSED 127.0.0.1:9000 [ECONNREFUSED]");
    const denied = Object.assign(new Error("Access Denied."), {
      name: "AccessDenied",
      $metadata: { httpStatusCode: 403 },
    });
    expect(describeError(denied)).toBe("AccessDenied: Access Denied. (HTTP 403 Forbidden)");
  });

  it("turns the SDK's multi-line deserialization error (a server going down) into a short reason", () => {
    const error = Object.assign(
      new Error(
        "char 'S' is not expected.:1:1\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.",
      ),
      { name: "Error", $metadata: { httpStatusCode: 503 } },
    );
    expect(describeError(error)).toBe("the server's reply was not S3 XML (HTTP 503 Service Unavailable)");
  });

  it("says a marked error as the error it marks, and never a benchspec code", () => {
    const timeout = Object.assign(new Error("no bytes from the server for 1.5 s"), { code: "ETIMEDOUT" });
    expect(describeError(marked("target-unresponsive", timeout))).toBe(
      "no bytes from the server for 1.5 s [ETIMEDOUT]",
    );
    expect(describeError(new HttpParseError("bad status line"))).toBe("HttpParseError: bad status line");
  });
});

describe("a failed operation's code", () => {
  it("goes from the error to its record and to the repetition's measurement, for the runner", async () => {
    const result = await runLoad(
      [{ count: 3 }],
      async (item) => {
        if (item.index === 0) return 1;
        throw marked("target-unresponsive", new Error("no bytes from the server for 1 s"));
      },
      { concurrency: 1, signal: new AbortController().signal },
    );
    expect(result.records.map((r) => r.errorCode)).toEqual([undefined, "target-unresponsive"]);
    expect(measure(result)).toMatchObject({ ok: false, errorCode: "target-unresponsive" });
  });

  it("is absent when the error has none", async () => {
    const result = await runLoad(
      [{ count: 1 }],
      async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:9000");
      },
      { concurrency: 1, signal: new AbortController().signal },
    );
    expect(result.records[0]).not.toHaveProperty("errorCode");
    expect(measure(result)).not.toHaveProperty("errorCode");
  });
});

describe("itemAt: the shared operation list", () => {
  const ops = [
    { name: "a", from: 0, count: 2 },
    { name: "b", from: 10, count: 3 },
  ];
  it("walks batches in order, pass after pass, numbering passes from firstPass", () => {
    const seen = Array.from({ length: 11 }, (_, n) => itemAt(ops, n, 2, 3));
    expect(seen.map((i) => i && `${i.op.name}${i.index}/p${i.pass}`)).toEqual([
      "a0/p3",
      "a1/p3",
      "b10/p3",
      "b11/p3",
      "b12/p3",
      "a0/p4",
      "a1/p4",
      "b10/p4",
      "b11/p4",
      "b12/p4",
      undefined,
    ]);
  });
  it("has nothing for an empty list", () => {
    expect(itemAt([], 0, 1, 0)).toBeUndefined();
  });
});

describe("resolveThreads", () => {
  it("never runs more threads than operations in flight", () => {
    expect(resolveThreads(4, 2, 32)).toBe(2);
    expect(resolveThreads(4, 64, 32)).toBe(4);
  });
  it("auto: one thread per 8 in flight, at most half the cores and 8; one on 2 cores", () => {
    expect(resolveThreads("auto", 64, 2)).toBe(1);
    expect(resolveThreads("auto", 8, 16)).toBe(1);
    expect(resolveThreads("auto", 9, 16)).toBe(2);
    expect(resolveThreads("auto", 64, 6)).toBe(3);
    expect(resolveThreads("auto", 1000, 64)).toBe(8);
  });
});

describe("the time series follows the bytes as they move", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("an operation that idles, then moves all its bytes, shows nothing first and everything last", async () => {
    const total = 8 * 2 ** 20;
    const result = await runLoad(
      [{ count: 1 }],
      async (_item, _worker, marks) => {
        await sleep(300); // e.g. a server that takes long to answer
        for (let i = 0; i < 8; i++) {
          marks.moved(total / 8);
          await sleep(10);
        }
        return total;
      },
      { concurrency: 1, signal: new AbortController().signal },
    );
    const record = result.records[0]!;
    expect(record.progress!.length).toBeGreaterThanOrEqual(8); // [time, bytes] pairs
    const middle = record.start + 150;
    expect(bytesWithin(record, record.start, middle)).toBe(0);
    expect(bytesWithin(record, record.start, record.end)).toBe(total);
    const points = measure(result, 0.1).timeseries!;
    expect(points[0]!.throughput).toBe(0);
    // Every byte after the idle start (the last bin may be empty when a loaded machine stretches the sleeps).
    const idle = points.filter((p) => p.t <= 0.25);
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.every((p) => p.throughput === 0)).toBe(true);
    expect(points.some((p) => p.t > 0.3 && p.throughput > 0)).toBe(true);
    const bytes = points.reduce((sum, p, i) => sum + p.throughput * (p.t - (points[i - 1]?.t ?? 0)), 0);
    expect(bytes).toBeCloseTo(total, -3);
  });

  it("an operation without progress is spread evenly, as before", () => {
    const record = { worker: 0, start: 0, end: 100, bytes: 1000 };
    expect(bytesWithin(record, 0, 50)).toBe(500);
    expect(bytesWithin(record, 90, 200)).toBe(100);
  });
});

describe("a repetition of many small operations", () => {
  it("measures 300,000 of them (more than a spread into Math.min/max can hold)", async () => {
    const count = 300_000;
    const result = await runLoad([{ count }], async () => 4096, {
      concurrency: 16,
      signal: new AbortController().signal,
    });
    expect(result.records).toHaveLength(count);
    const measured = measure(result);
    expect(measured).toMatchObject({ ok: true, ops: count, bytes: count * 4096 });
    // From the start (or an earlier first request) to the end of the last one to finish.
    expect(measured.seconds).toBeGreaterThanOrEqual((result.records.at(-1)!.end - result.startedAt) / 1000);
  });
});
