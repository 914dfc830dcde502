import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { payloadBody, streamBuffersMade, warmStreams } from "../../src/engines/http/payload-body.js";
import { makePayload, type Payload } from "../../src/engines/load/payload.js";

const MiB = 2 ** 20;
const BLOCK = 4096;

/**
 * Runs payloadBody's producer against a sink that lets writes finish in a shuffled order; each body comes
 * back whole, or as its SHA-256 (a sink that allocates nothing per chunk).
 */
async function streamed(payloads: Payload[], collect: "bytes" | "sha256" = "bytes"): Promise<Buffer[]> {
  const pending: (() => void)[] = [];
  let turn = 0;
  // Every few writes, finish the pending ones in reverse order: buffers come back out of order and are
  // reused by the other bodies in flight while their earlier chunks are still "on the wire".
  const flush = () =>
    pending
      .splice(0)
      .reverse()
      .forEach((done) => done());
  const bodies = payloads.map(async (payload) => {
    const chunks: Buffer[] = [];
    const hash = createHash("sha256");
    await payloadBody(payload)(
      (chunk) =>
        new Promise<void>((done) => {
          // What the socket would send, taken now, while the buffer is held.
          if (collect === "bytes") chunks.push(Buffer.from(chunk));
          else hash.update(chunk);
          pending.push(done);
          if (++turn % 3 === 0) setImmediate(flush);
        }),
    );
    return collect === "bytes" ? Buffer.concat(chunks) : hash.digest();
  });
  const timer = setInterval(flush, 1);
  try {
    return await Promise.all(bodies);
  } finally {
    clearInterval(timer);
  }
}

describe("payloads", () => {
  it("streamed bodies are byte-exact though their chunk buffers are reused across objects", async () => {
    // Sizes on and off the 2 MiB chunk, several objects at once, compressible and zero ones among them.
    const payloads = [
      makePayload("s1", 9 * MiB, "random"),
      makePayload("s2", 7 * MiB + 12_345, "random"),
      makePayload("s3", 9 * MiB, "random"),
      makePayload("s4", 3 * MiB + 1, { compressible: 50 }),
      makePayload("s5", 2 * MiB, "zero"),
      makePayload("s6", 5 * MiB, { compressible: 99.9 }),
    ];
    for (let pass = 0; pass < 2; pass++) {
      const bodies = await streamed(payloads);
      bodies.forEach((body, i) => {
        expect(body.equals(payloads[i]!.slice(0, payloads[i]!.size)), `payload ${i}`).toBe(true);
      });
    }
  });

  it("buffers made ahead (warmStreams) hold every body in flight: none is made while they stream", async () => {
    // More bodies at once than the test above, whose buffers the module still holds.
    const payloads = Array.from({ length: 24 }, (_, i) => makePayload(`w${i}`, 4 * MiB + i, "random"));
    const before = streamBuffersMade();
    warmStreams(payloads.length, 4 * MiB + 100, "random");
    // Two 2 MiB chunks per body and the idle spares, the module's earlier ones among them.
    expect(streamBuffersMade()).toBe(Math.max(before, 24 * 2 + 16));
    expect(streamBuffersMade()).toBeGreaterThan(before);
    warmStreams(payloads.length, 4 * MiB + 100, "random");
    expect(streamBuffersMade()).toBe(24 * 2 + 16);
    const hashes = await streamed(payloads, "sha256");
    expect(streamBuffersMade()).toBe(24 * 2 + 16);
    hashes.forEach((hash, i) => {
      const whole = payloads[i]!.slice(0, payloads[i]!.size);
      expect(hash.equals(createHash("sha256").update(whole).digest()), `payload ${i}`).toBe(true);
    });
  });

  it("any range is the same bytes as that range of the whole object, whatever its alignment", () => {
    const payload = makePayload("ranges", 3 * MiB + 777, "random");
    const whole = payload.slice(0, payload.size);
    for (const [offset, length] of [
      [0, 1],
      [1, 4095],
      [4095, 2],
      [4097, 10_000],
      [MiB - 3, 2 * MiB],
      [3 * MiB, 777],
      [12, 15],
    ] as const) {
      const into = Buffer.alloc(length + 3).subarray(3); // an odd byte offset in memory
      expect(payload.slice(offset, length, into).equals(whole.subarray(offset, offset + length))).toBe(true);
      expect(payload.slice(offset, length).equals(whole.subarray(offset, offset + length))).toBe(true);
    }
  });

  it("no two 4 KiB blocks are equal, within an object or across objects, and random data does not compress", () => {
    const seen = new Set<string>();
    for (const identity of ["u1", "u2", "u3"]) {
      const bytes = makePayload(identity, 10 * MiB, "random").slice(0, 10 * MiB);
      for (let at = 0; at < bytes.length; at += BLOCK) {
        const hash = createHash("sha1")
          .update(bytes.subarray(at, at + BLOCK))
          .digest("hex");
        expect(seen.has(hash)).toBe(false);
        seen.add(hash);
      }
      expect(gzipSync(bytes.subarray(0, 2 * MiB)).length).toBeGreaterThan(2 * MiB * 0.99);
    }
  });

  it("restamp turns a buffer of the same layout into another object’s bytes; an object’s chunks at other pool positions have other layouts", () => {
    const a = makePayload("layout-a", 16 * MiB, "random");
    const b = makePayload("layout-b", 16 * MiB, "random");
    // Some chunk of b has the layout of a's first chunk (8 pool positions, 16 chunks).
    const k = Array.from({ length: 16 }, (_, i) => i).find(
      (i) => b.layout(i * MiB, MiB) === a.layout(0, MiB),
    )!;
    expect(k).toBeDefined();
    const buffer = a.slice(0, MiB);
    expect(b.restamp(buffer, k * MiB, MiB).equals(b.slice(k * MiB, MiB))).toBe(true);
    expect(a.layout(0, MiB)).not.toBe(a.layout(MiB, MiB));
    // Stamps overlapped by zeros: no layout, so nothing is restamped.
    expect(makePayload("z", MiB, { compressible: 99.9 }).layout(0, MiB)).toBeUndefined();
  });
});
