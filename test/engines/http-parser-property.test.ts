/**
 * The hand-written HTTP/1.1 response parser (src/engines/http/response-parser.ts) under generated input:
 * any well-formed response — Content-Length, chunked (extensions, trailers) or read-until-close, after
 * interim 1xx responses, followed by bytes of the next one — cut into any pieces and fed through a reused
 * buffer parses to its status, headers and exact body, ends once, and reports exactly the bytes past it;
 * and any bytes at all (random, or a valid response with bytes flipped) either parse or fail with
 * HttpParseError, never another error, and never yield more body bytes than were fed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpParseError, ResponseParser, type ResponseHead } from "../../src/engines/http/response-parser.js";

interface Fed {
  heads: ResponseHead[];
  body: Buffer;
  ends: number;
  leftover: number;
  parser: ResponseParser;
}

/** Feeds the pieces through one buffer scribbled over after every feed, as the socket's static read buffer is. */
function feed(pieces: Buffer[], bodiless = false): Fed {
  const fed: Fed = { heads: [], body: Buffer.alloc(0), ends: 0, leftover: 0, parser: undefined! };
  const chunks: Buffer[] = [];
  fed.parser = new ResponseParser(
    {
      head: (head) => fed.heads.push(head),
      body: (bytes) => chunks.push(Buffer.from(bytes)),
      end: () => fed.ends++,
    },
    bodiless,
  );
  const readBuffer = Buffer.alloc(Math.max(1, ...pieces.map((p) => p.length)));
  for (const piece of pieces) {
    piece.copy(readBuffer);
    fed.leftover += fed.parser.feed(readBuffer.subarray(0, piece.length));
    readBuffer.fill(0x5a);
  }
  fed.body = Buffer.concat(chunks);
  return fed;
}

/** `data` cut at the given points (sorted, deduplicated, clipped to its length). */
function cut(data: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (data.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...at, data.length]) {
    if (point > from) pieces.push(data.subarray(from, point));
    from = Math.max(from, point);
  }
  return pieces;
}

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);
/** Header values: visible ASCII and inner spaces (the parser trims the ends). */
const value = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/);
const reserved = new Set(["content-length", "transfer-encoding", "connection"]);

const response = fc.record({
  status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
  reason: fc.stringMatching(/^[A-Za-z ]{0,20}$/),
  headers: fc.array(fc.tuple(token, value), { maxLength: 8 }),
  body: fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b)),
  framing: fc.constantFrom("length", "chunked", "close"),
  chunkSizes: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
  extensions: fc.boolean(),
  trailers: fc.array(fc.tuple(token, value), { maxLength: 3 }),
  interim: fc.boolean(),
  after: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  cuts: fc.array(fc.nat(), { maxLength: 12 }),
});

type Generated = typeof response extends fc.Arbitrary<infer T> ? T : never;

function wire(r: Generated): Buffer {
  const headers = r.headers.filter(([name]) => !reserved.has(name.toLowerCase()));
  let head = `HTTP/1.1 ${r.status} ${r.reason}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}`;
  const parts: Buffer[] = [];
  if (r.interim) parts.push(Buffer.from("HTTP/1.1 100 Continue\r\n\r\n", "latin1"));
  if (r.framing === "length") {
    parts.push(Buffer.from(`${head}Content-Length: ${r.body.length}\r\n\r\n`, "latin1"), r.body);
  } else if (r.framing === "close") {
    parts.push(Buffer.from(`${head}Connection: close\r\n\r\n`, "latin1"), r.body);
  } else {
    head += "Transfer-Encoding: chunked\r\n\r\n";
    parts.push(Buffer.from(head, "latin1"));
    let at = 0;
    for (let i = 0; at < r.body.length; i++) {
      const size = Math.min(r.chunkSizes[i % r.chunkSizes.length]!, r.body.length - at);
      const ext = r.extensions ? `;n${i}=v` : "";
      parts.push(Buffer.from(`${size.toString(16)}${ext}\r\n`, "latin1"), r.body.subarray(at, at + size));
      parts.push(Buffer.from("\r\n", "latin1"));
      at += size;
    }
    const trailers = r.trailers.map(([n, v]) => `${n}: ${v}\r\n`).join("");
    parts.push(Buffer.from(`0\r\n${trailers}\r\n`, "latin1"));
  }
  return Buffer.concat(parts);
}

describe("ResponseParser, generated responses", () => {
  it("parses any well-formed response cut anywhere: status, headers, exact body, one end, exact leftover", () => {
    fc.assert(
      fc.property(response, (r) => {
        const data = wire(r);
        // Read-until-close bodies have no end but the connection's: nothing can follow them.
        const after = r.framing === "close" ? Buffer.alloc(0) : r.after;
        const fed = feed(cut(Buffer.concat([data, after]), r.cuts));
        if (r.framing === "close") {
          expect(fed.ends).toBe(0);
          fed.parser.close();
        }
        expect(fed.heads).toHaveLength(1);
        const head = fed.heads[0]!;
        expect(head.status).toBe(r.status);
        expect(head.statusText).toBe(r.reason);
        const expected = new Map<string, string>();
        for (const [name, v] of r.headers.filter(([n]) => !reserved.has(n.toLowerCase()))) {
          const previous = expected.get(name.toLowerCase());
          expected.set(name.toLowerCase(), previous === undefined ? v : `${previous}, ${v}`);
        }
        for (const [name, v] of expected) expect(head.headers.get(name)).toBe(v);
        expect(fed.body.equals(r.body)).toBe(true);
        expect(fed.ends).toBe(1);
        expect(fed.parser.done).toBe(true);
        expect(fed.leftover).toBe(after.length);
        expect(head.keepAlive).toBe(r.framing !== "close");
      }),
      { numRuns: 500 },
    );
  });

  /** Feeds and closes; returns the error, if any. */
  const outcome = (pieces: Buffer[], bodiless: boolean) => {
    let fed: Fed | undefined;
    try {
      fed = feed(pieces, bodiless);
      fed.parser.close();
      return { fed };
    } catch (error) {
      return { fed, error };
    }
  };
  const fedBytes = (pieces: Buffer[]) => pieces.reduce((n, p) => n + p.length, 0);

  it("fails any random bytes with HttpParseError or parses them, never yielding more body than was fed", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
          { maxLength: 6 },
        ),
        fc.boolean(),
        (pieces, bodiless) => {
          const { fed, error } = outcome(pieces, bodiless);
          if (error !== undefined) expect(error).toBeInstanceOf(HttpParseError);
          if (fed) expect(fed.body.length).toBeLessThanOrEqual(fedBytes(pieces));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("fails a valid response with bytes overwritten with HttpParseError or parses it, never another error", () => {
    fc.assert(
      fc.property(
        response,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (r, flips, bodiless) => {
          const data = Buffer.from(wire(r));
          for (const [at, byte] of flips) data[at % data.length] = byte;
          const pieces = cut(data, r.cuts);
          const { fed, error } = outcome(pieces, bodiless);
          if (error !== undefined) expect(error).toBeInstanceOf(HttpParseError);
          if (fed) {
            expect(fed.body.length).toBeLessThanOrEqual(data.length);
            expect(fed.ends).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
