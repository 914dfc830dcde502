import { execa } from "execa";
import { createCipheriv, createHash } from "node:crypto";
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
    // Sizes on and off the 256 KiB chunk, several objects at once, compressible and zero ones among them.
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
    const payloads = Array.from({ length: 24 }, (_, i) => makePayload(`w${i}`, MiB + i, "random"));
    const before = streamBuffersMade();
    warmStreams(0);
    expect(streamBuffersMade()).toBe(before);
    warmStreams(payloads.length);
    const warm = streamBuffersMade();
    expect(warm).toBeGreaterThanOrEqual(payloads.length);
    expect(warm).toBeGreaterThan(before);
    const hashes = await streamed(payloads, "sha256");
    expect(streamBuffersMade()).toBe(warm);
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

  it("no 64-byte piece repeats, within an object or across objects, and gzip finds nothing to compress", () => {
    const seen = new Set<string>();
    for (const identity of ["u1", "u2", "u3"]) {
      const bytes = makePayload(identity, 2 * MiB, "random").slice(0, 2 * MiB);
      for (let at = 0; at < bytes.length; at += 64) {
        const piece = bytes.toString("base64", at, at + 64);
        expect(seen.has(piece)).toBe(false);
        seen.add(piece);
      }
      expect(gzipSync(bytes).length).toBeGreaterThan(bytes.length);
    }
  });

  it("a compressor whose window spans the whole object finds nothing to compress", async () => {
    // zstd --long=27 matches over 128 MiB: a generator that repeated itself every few MiB would be found.
    const large = makePayload("large", 24 * MiB, "random").slice(0, 24 * MiB);
    const { stdout } = await execa("zstd", ["-c", "-3", "--long=27"], {
      input: large,
      encoding: "buffer",
    });
    expect(stdout.length).toBeGreaterThan(large.length * 0.999);
  });

  it("a block is its table block XOR its key, as docs/language.md §9 defines them", () => {
    const mask = (1n << 64n) - 1n;
    const mix = (x: bigint) => {
      x ^= x >> 33n;
      x = (x * 0xff51afd7ed558ccdn) & mask;
      x ^= x >> 33n;
      x = (x * 0xc4ceb9fe1a85ec53n) & mask;
      return x ^ (x >> 33n);
    };
    const key = createHash("sha256").update("benchspec payload table 1").digest();
    const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16));
    const table = Buffer.concat([cipher.update(Buffer.alloc(16 * BLOCK)), cipher.final()]);
    const identity = "run-1|object-7";
    const digest = createHash("sha256").update(identity).digest();
    const [id0, id1] = [digest.readBigUInt64LE(0), digest.readBigUInt64LE(8)];
    const payload = makePayload(identity, 2 ** 45, "random");
    for (const block of [0, 1, 2, 17, 2 ** 32 + 5]) {
      const k0 = mix(id0 ^ ((BigInt(block) * 0x9e3779b97f4a7c15n) & mask));
      const blockKey = Buffer.alloc(16);
      blockKey.writeBigUInt64LE(k0, 0);
      blockKey.writeBigUInt64LE(mix(k0 ^ id1), 8);
      const from = Number((BigInt(block) + id1) % 16n) * BLOCK;
      const expected = Buffer.from(
        table.subarray(from, from + BLOCK).map((byte, i) => byte ^ blockKey[i % 16]!),
      );
      expect(payload.slice(block * BLOCK, BLOCK).equals(expected), `block ${block}`).toBe(true);
    }
  });

  it("the committed kernel binary is what its WebAssembly text assembles to", async () => {
    const check = await execa("node", ["scripts/build-wasm.mjs", "--check"], { reject: false });
    expect(check.stderr).toBe("");
    expect(check.exitCode).toBe(0);
  });
});
