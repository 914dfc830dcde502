/**
 * The S3 data plane's wire layer, without a store: the SigV4 signer against @smithy/signature-v4 (the SDK's
 * own), the incremental HTTP/1.1 response parser on hand-made responses cut at every byte, and the
 * keep-alive connection pool against real node:http and raw TCP servers on loopback.
 */
import { SignatureV4 } from "@smithy/signature-v4";
import { createHash, createHmac, randomBytes, type Hash, type Hmac } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionPool, type WireRequest, type WriteChunk } from "../../src/engines/http/http1.js";
import { HttpParseError, ResponseParser, type ResponseHead } from "../../src/engines/http/response-parser.js";
import {
  RequestSigner,
  UNSIGNED_PAYLOAD,
  canonicalQuery,
  uriEncode,
  type SigningCredentials,
} from "../../src/engines/s3/sigv4.js";

const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/* ---------- SigV4 ---------- */

type SourceData = string | ArrayBuffer | ArrayBufferView;
const toBuffer = (data: SourceData): Buffer =>
  typeof data === "string"
    ? Buffer.from(data, "utf8")
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** The hash constructor @smithy/signature-v4 wants, on node:crypto: SHA-256, or HMAC-SHA-256 given a secret. */
class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", toBuffer(secret));
  }
  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

interface SigningCase {
  name: string;
  method: string;
  host: string;
  key: string;
  bucket?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  region: string;
  credentials: SigningCredentials;
  date: Date;
}

const plainCredentials: SigningCredentials = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};
const tokenCredentials: SigningCredentials = {
  accessKeyId: "ASIAEXAMPLE",
  secretAccessKey: "another/secret+with=odd~chars",
  sessionToken: "FwoGZXIvYXdzEJr//////////wEaDOpaque+Token/With=Padding==",
};
const JAN = new Date("2024-01-15T08:09:10.123Z");
const NEXT_DAY = new Date("2024-01-16T23:59:59.999Z");

const SIGNING_CASES: SigningCase[] = [
  {
    name: "GET, plain key",
    method: "GET",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "plain/object.bin",
    region: "us-east-1",
    credentials: plainCredentials,
    date: JAN,
  },
  {
    name: "GET of a key with spaces, unicode and reserved characters, ranged",
    method: "GET",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "dir with space/ünïcödé 日本語 😀/a+b=c~d!e'f(g)h*i.bin",
    headers: { range: "bytes=0-1023" },
    region: "us-east-1",
    credentials: plainCredentials,
    date: JAN,
  },
  {
    name: "PUT of a part (query with '/', '+', '='), with a session token",
    method: "PUT",
    host: "my-bucket.s3.eu-central-1.amazonaws.com",
    key: "multi part/ü+=%.bin",
    query: { uploadId: "a/b+c==", partNumber: "3" },
    region: "eu-central-1",
    credentials: tokenCredentials,
    date: JAN,
  },
  {
    name: "PUT without a session token, on the next day (new signing key)",
    method: "PUT",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "a/b/c/~tilde!bang",
    region: "us-east-1",
    credentials: plainCredentials,
    date: NEXT_DAY,
  },
  {
    name: "HEAD with a session token",
    method: "HEAD",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "+plus at start/=equals",
    region: "us-east-1",
    credentials: tokenCredentials,
    date: NEXT_DAY,
  },
  {
    name: "HEAD, other secret, same day (the cached key must not be reused)",
    method: "HEAD",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "+plus at start/=equals",
    region: "us-east-1",
    credentials: plainCredentials,
    date: NEXT_DAY,
  },
  {
    name: "DELETE with a session token and a ranged header with odd whitespace",
    method: "DELETE",
    host: "[::1]:9000",
    bucket: "bucket",
    key: "deep/nested/path/with space",
    headers: { range: "bytes=100-", "x-amz-meta-note": "  two  spaces\tand a tab " },
    region: "us-east-1",
    credentials: tokenCredentials,
    date: JAN,
  },
  {
    name: "GET with a listing-like query (unicode, spaces, empty value)",
    method: "GET",
    host: "127.0.0.1:9000",
    bucket: "bucket",
    key: "",
    query: {
      "list-type": "2",
      prefix: "dir with space/ü+",
      "continuation-token": "x+y/z=",
      "fetch-owner": "",
    },
    region: "ap-southeast-2",
    credentials: plainCredentials,
    date: JAN,
  },
];

describe("RequestSigner", () => {
  // One signer per region, reused across cases as the data plane reuses it: the key cache is exercised.
  const signers = new Map<string, RequestSigner>();
  const signerFor = (region: string) => {
    let signer = signers.get(region);
    if (!signer) signers.set(region, (signer = new RequestSigner(region)));
    return signer;
  };

  for (const c of SIGNING_CASES) {
    it(`signs like @smithy/signature-v4: ${c.name}`, async () => {
      const path = `${c.bucket ? `/${c.bucket}` : ""}/${uriEncode(c.key, true)}`;
      const ours = signerFor(c.region).sign(
        { method: c.method, host: c.host, path, query: c.query, headers: c.headers },
        c.credentials,
        c.date,
      );

      const smithy = new SignatureV4({
        service: "s3",
        region: c.region,
        credentials: c.credentials,
        sha256: NodeSha256,
        uriEscapePath: false,
        applyChecksum: false,
      });
      const signed = await smithy.sign(
        {
          method: c.method,
          protocol: "https:",
          hostname: c.host,
          path,
          query: c.query ?? {},
          headers: { ...c.headers, host: c.host, "x-amz-content-sha256": UNSIGNED_PAYLOAD },
        },
        { signingDate: c.date },
      );

      expect(ours.authorization).toBe(signed.headers.authorization);
      // Every header, not only authorization: x-amz-date, the token, host, the content hash.
      expect(ours).toEqual(signed.headers);
      if (c.credentials.sessionToken) expect(ours["x-amz-security-token"]).toBe(c.credentials.sessionToken);
      else expect(ours).not.toHaveProperty("x-amz-security-token");
    });
  }

  it("signs differently for another secret, date or path (the signature covers them)", () => {
    const signer = new RequestSigner("us-east-1");
    const request = { method: "GET", host: "h", path: "/b/k" };
    const base = signer.sign(request, plainCredentials, JAN).authorization;
    expect(signer.sign(request, plainCredentials, JAN).authorization).toBe(base);
    expect(signer.sign(request, { ...plainCredentials, secretAccessKey: "x" }, JAN).authorization).not.toBe(
      base,
    );
    expect(signer.sign(request, plainCredentials, NEXT_DAY).authorization).not.toBe(base);
    expect(signer.sign({ ...request, path: "/b/k2" }, plainCredentials, JAN).authorization).not.toBe(base);
    // And back: a cached key for another secret or day must not leak into this one.
    expect(signer.sign(request, plainCredentials, JAN).authorization).toBe(base);
  });
});

describe("uriEncode and canonicalQuery", () => {
  it("encodes everything but RFC 3986 unreserved characters, '/' only when asked", () => {
    expect(uriEncode("AZaz09-_.~")).toBe("AZaz09-_.~");
    expect(uriEncode("a b/c")).toBe("a%20b%2Fc");
    expect(uriEncode("a b/c", true)).toBe("a%20b/c");
    expect(uriEncode("!'()*")).toBe("%21%27%28%29%2A");
    expect(uriEncode("+=&%?#")).toBe("%2B%3D%26%25%3F%23");
    expect(uriEncode("ü😀")).toBe("%C3%BC%F0%9F%98%80");
    expect(uriEncode("%2F/x", true)).toBe("%252F/x");
    expect(uriEncode("")).toBe("");
  });

  it("sorts by encoded name and encodes names and values", () => {
    expect(canonicalQuery(undefined)).toBe("");
    expect(canonicalQuery({})).toBe("");
    expect(canonicalQuery({ uploadId: "a/b+c==", partNumber: "3" })).toBe(
      "partNumber=3&uploadId=a%2Fb%2Bc%3D%3D",
    );
    expect(canonicalQuery({ uploads: "" })).toBe("uploads=");
    // Code-unit order of the encoded names: upper case, then '%', then lower case.
    expect(canonicalQuery({ b: "1", "a b": "2 3", A: "ü" })).toBe("A=%C3%BC&a%20b=2%203&b=1");
  });
});

/* ---------- ResponseParser ---------- */

interface Parsed {
  heads: ResponseHead[];
  body: Buffer;
  ends: number;
  leftovers: number[];
  parser: ResponseParser;
}

/**
 * Feeds `pieces` one at a time through one reused buffer that is scribbled over after every feed, as the
 * socket's static read buffer is: a parser that kept a reference to what it was given would see garbage.
 */
function parse(pieces: Buffer[], bodiless = false): Parsed {
  const heads: ResponseHead[] = [];
  const chunks: Buffer[] = [];
  const counts = { ends: 0 };
  const parser = new ResponseParser(
    {
      head: (head) => heads.push(head),
      body: (bytes) => chunks.push(Buffer.from(bytes)),
      end: () => counts.ends++,
    },
    bodiless,
  );
  const readBuffer = Buffer.alloc(Math.max(1, ...pieces.map((p) => p.length)));
  const leftovers = pieces.map((piece) => {
    piece.copy(readBuffer);
    const left = parser.feed(readBuffer.subarray(0, piece.length));
    readBuffer.fill(0x5a);
    return left;
  });
  return {
    heads,
    get body() {
      return Buffer.concat(chunks);
    },
    get ends() {
      return counts.ends;
    },
    leftovers,
    parser,
  };
}

const bytes = (text: string) => Buffer.from(text, "latin1");
const splitAt = (data: Buffer, at: number) => [data.subarray(0, at), data.subarray(at)];
const byteByByte = (data: Buffer) => [...data].map((b) => Buffer.from([b]));

describe("ResponseParser", () => {
  const lengthResponse = bytes(
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Dup: a\r\nx-dup:  b \r\nContent-Length: 11\r\n\r\nhello world",
  );

  it("parses a Content-Length response split in two at every byte", () => {
    for (let at = 0; at <= lengthResponse.length; at++) {
      const parsed = parse(splitAt(lengthResponse, at));
      expect(parsed.heads, `split at ${at}`).toHaveLength(1);
      const head = parsed.heads[0]!;
      expect(head.status).toBe(200);
      expect(head.statusText).toBe("OK");
      expect(head.keepAlive).toBe(true);
      expect(Object.fromEntries(head.headers)).toEqual({
        "content-type": "text/plain",
        "x-dup": "a, b",
        "content-length": "11",
      });
      expect(parsed.body.toString("latin1"), `split at ${at}`).toBe("hello world");
      expect(parsed.ends).toBe(1);
      expect(parsed.parser.done).toBe(true);
      expect(parsed.leftovers).toEqual([0, 0]);
    }
  });

  it("parses a Content-Length response fed byte by byte, and nothing before its last byte ends it", () => {
    const parsed = parse(byteByByte(lengthResponse.subarray(0, -1)));
    expect(parsed.heads).toHaveLength(1);
    expect(parsed.body.toString("latin1")).toBe("hello worl");
    expect(parsed.ends).toBe(0);
    expect(parsed.parser.done).toBe(false);
    expect(parse(byteByByte(lengthResponse)).ends).toBe(1);
  });

  const chunkData = "abcdefghijklmnopqrstuvwxyz";
  const chunkedResponse = bytes(
    "HTTP/1.1 206 Partial Content\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" +
      "5;name=value\r\nhello\r\n" +
      `1A ; a=b; c\r\n${chunkData}\r\n` +
      "1\r\n\n\r\n" +
      "0;last=yes\r\nX-Trailer: yes\r\nX-Other: 2\r\n\r\n",
  );

  it("parses a chunked body with chunk extensions and trailers, byte by byte", () => {
    const parsed = parse(byteByByte(chunkedResponse));
    expect(parsed.heads.map((h) => h.status)).toEqual([206]);
    expect(parsed.heads[0]!.statusText).toBe("Partial Content");
    expect(parsed.body.toString("latin1")).toBe(`hello${chunkData}\n`);
    expect(parsed.ends).toBe(1);
    expect(parsed.parser.done).toBe(true);
    expect(parsed.leftovers.every((n) => n === 0)).toBe(true);
  });

  it("parses the chunked body split in two at every byte", () => {
    for (let at = 0; at <= chunkedResponse.length; at++) {
      const parsed = parse(splitAt(chunkedResponse, at));
      expect(parsed.body.toString("latin1"), `split at ${at}`).toBe(`hello${chunkData}\n`);
      expect(parsed.ends, `split at ${at}`).toBe(1);
    }
  });

  it("skips an interim 100 Continue and reports only the real response", () => {
    const response = bytes(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\nETag: "x"\r\n\r\nok',
    );
    for (let at = 0; at <= response.length; at++) {
      const parsed = parse(splitAt(response, at));
      expect(
        parsed.heads.map((h) => h.status),
        `split at ${at}`,
      ).toEqual([201]);
      expect(parsed.heads[0]!.headers.get("etag")).toBe('"x"');
      expect(parsed.body.toString("latin1")).toBe("ok");
      expect(parsed.ends).toBe(1);
    }
  });

  it("ends a HEAD response at its head, whatever Content-Length says, and reports the next bytes as left over", () => {
    const head = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n";
    const next = "HTTP/1.1 200 OK\r\n";
    const parsed = parse([bytes(head + next)], true);
    expect(parsed.heads[0]!.headers.get("content-length")).toBe("1234");
    expect(parsed.body.length).toBe(0);
    expect(parsed.ends).toBe(1);
    expect(parsed.parser.done).toBe(true);
    expect(parsed.leftovers).toEqual([next.length]);
  });

  it("ends 204 and 304 responses at their head (not at close)", () => {
    for (const status of ["204 No Content", "304 Not Modified"]) {
      const parsed = parse([bytes(`HTTP/1.1 ${status}\r\nETag: "e"\r\n\r\n`)]);
      expect(parsed.heads[0]!.status).toBe(Number(status.slice(0, 3)));
      expect(parsed.ends).toBe(1);
      expect(parsed.parser.done).toBe(true);
      expect(parsed.parser.endsAtClose).toBe(false);
    }
  });

  it("ends a Content-Length: 0 response at its head", () => {
    const parsed = parse([bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP")]);
    expect(parsed.ends).toBe(1);
    expect(parsed.leftovers).toEqual([4]);
  });

  it("reads a body without length or chunking until close()", () => {
    const parsed = parse([bytes("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsome "), bytes("body")]);
    expect(parsed.heads[0]!.keepAlive).toBe(false);
    expect(parsed.parser.endsAtClose).toBe(true);
    expect(parsed.parser.done).toBe(false);
    expect(parsed.ends).toBe(0);
    parsed.parser.close();
    expect(parsed.ends).toBe(1);
    expect(parsed.parser.done).toBe(true);
    expect(parsed.body.toString("latin1")).toBe("some body");
  });

  it("knows HTTP/1.0 keep-alive rules", () => {
    const head = (text: string) => parse([bytes(`${text}\r\nContent-Length: 0\r\n\r\n`)]).heads[0]!;
    expect(head("HTTP/1.0 200 OK").keepAlive).toBe(false);
    expect(head("HTTP/1.0 200 OK\r\nConnection: Keep-Alive").keepAlive).toBe(true);
    expect(head("HTTP/1.1 200 OK\r\nConnection: Close").keepAlive).toBe(false);
    expect(head("HTTP/1.1 200").statusText).toBe("");
  });

  it("reports bytes past the end of a response as left over", () => {
    expect(parse([bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA")]).leftovers).toEqual([5]);
    const chunked = Buffer.concat([chunkedResponse, bytes("XYZ")]);
    expect(parse([chunked]).leftovers).toEqual([3]);
    // Fed again once done: everything is left over.
    const parsed = parse([lengthResponse, bytes("more")]);
    expect(parsed.leftovers).toEqual([0, 4]);
    expect(parsed.body.toString("latin1")).toBe("hello world");
  });

  it("throws HttpParseError on a malformed status line", () => {
    for (const line of [
      "HTTP/2 200 OK",
      "HTTX/1.1 200 OK",
      "HTTP/1.1 20 OK",
      "HTTP/1.1 2000 OK",
      "garbage",
    ]) {
      expect(() => parse([bytes(`${line}\r\nContent-Length: 0\r\n\r\n`)]), line).toThrow(HttpParseError);
    }
  });

  it("throws HttpParseError on a header line without a colon", () => {
    expect(() => parse([bytes("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n")])).toThrow(HttpParseError);
  });

  it("throws HttpParseError on a bad Content-Length", () => {
    for (const length of ["abc", "-1", "12 34", "1.5", "0x10", ""]) {
      expect(
        () => parse([bytes(`HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\n\r\nbody`)]),
        JSON.stringify(length),
      ).toThrow(HttpParseError);
    }
  });

  it("throws HttpParseError on a bad chunk size or missing CRLF after chunk data", () => {
    const head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const body of ["zz\r\n", "-1\r\nx", "\r\n", ";ext\r\n", "5\r\nhelloXY", "5\r\nhello\rX"]) {
      expect(() => parse([bytes(head + body)]), JSON.stringify(body)).toThrow(HttpParseError);
      expect(() => parse(byteByByte(bytes(head + body))), JSON.stringify(body)).toThrow(HttpParseError);
    }
  });

  it("throws HttpParseError on a head over 64 KiB", () => {
    const huge = bytes(`HTTP/1.1 200 OK\r\nX-Big: ${"x".repeat(70 * 1024)}\r\n\r\n`);
    expect(() => parse([huge])).toThrow(HttpParseError);
  });

  it("close() before any byte, mid-head or mid-body throws HttpParseError", () => {
    expect(() => parse([]).parser.close()).toThrow(/before responding/);
    expect(() => parse([bytes("HTTP/1.1 200 OK\r\nContent-")]).parser.close()).toThrow(HttpParseError);
    const midBody = parse([lengthResponse.subarray(0, -3)]);
    expect(() => midBody.parser.close()).toThrow(HttpParseError);
    expect(midBody.ends).toBe(0);
    const midChunked = parse([chunkedResponse.subarray(0, -2)]);
    expect(() => midChunked.parser.close()).toThrow(/middle of the response/);
    // After a complete response, close() is fine.
    expect(() => parse([lengthResponse]).parser.close()).not.toThrow();
  });
});

/* ---------- ConnectionPool ---------- */

interface TestServer {
  port: number;
  connections: () => number;
  requests: () => number;
  sockets: Set<net.Socket>;
  pool: (idleTimeoutMs?: number) => ConnectionPool;
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track(server: net.Server, counters: { connections: number }, sockets: Set<net.Socket>) {
  server.on("connection", (socket: net.Socket) => {
    counters.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

function poolFor(port: number, idleTimeoutMs = 30_000): ConnectionPool {
  const pool = new ConnectionPool(
    { protocol: "http:", hostname: "127.0.0.1", port },
    { connectTimeoutMs: 5_000, idleTimeoutMs },
  );
  cleanups.push(() => pool.destroy());
  return pool;
}

/** A node:http server on loopback, counting its TCP connections and requests. */
async function httpServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  configure: (server: http.Server) => void = () => {},
): Promise<TestServer> {
  const counters = { connections: 0, requests: 0 };
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    counters.requests++;
    handler(req, res);
  });
  configure(server);
  return serve(server, counters, sockets);
}

/** Listens, counts connections, and destroys the server's sockets after the test. */
async function serve(
  server: net.Server,
  counters: { connections: number; requests: number },
  sockets: Set<net.Socket>,
): Promise<TestServer> {
  track(server, counters, sockets);
  const port = await listen(server);
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
  });
  return {
    port,
    connections: () => counters.connections,
    requests: () => counters.requests,
    sockets,
    pool: (idleTimeoutMs) => poolFor(port, idleTimeoutMs),
  };
}

/** A raw TCP server: `onData` sees every read of every connection. */
async function tcpServer(onData: (socket: net.Socket, data: Buffer) => void): Promise<TestServer> {
  const counters = { connections: 0, requests: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.on("data", (data) => {
      counters.requests++;
      onData(socket, data);
    });
  });
  return serve(server, counters, sockets);
}

const get = (port: number, target = "/", extra: Partial<WireRequest> = {}): WireRequest => ({
  method: "GET",
  target,
  headers: { host: `127.0.0.1:${port}` },
  ...extra,
});
const keepAll = { keepBody: () => true };

async function waitUntil(condition: () => boolean, what: string) {
  for (let i = 0; !condition(); i++) {
    if (i > 500) throw new Error(`gave up waiting for ${what}`);
    await sleep(10);
  }
}

describe("ConnectionPool", () => {
  it("sends sequential requests over one keep-alive connection", async () => {
    const server = await httpServer((req, res) => res.end(`you asked for ${req.method} ${req.url}`));
    const pool = server.pool();
    for (let i = 0; i < 5; i++) {
      const response = await pool.request(get(server.port, `/object-${i}?x=${i}`), keepAll);
      expect(response.status).toBe(200);
      expect(response.body?.toString()).toBe(`you asked for GET /object-${i}?x=${i}`);
      expect(response.bodyBytes).toBe(response.body!.length);
    }
    // Bodies not asked for are counted, not kept.
    const counted = await pool.request(get(server.port, "/counted"), { keepBody: (s) => s >= 300 });
    expect(counted.body).toBeUndefined();
    expect(counted.bodyBytes).toBe("you asked for GET /counted".length);
    expect(server.requests()).toBe(6);
    expect(server.connections()).toBe(1);
  });

  it("warm opens the connections the timed requests then use, an error answer too", async () => {
    const server = await httpServer((req, res) => {
      res.statusCode = req.method === "HEAD" ? 403 : 200;
      res.end();
    });
    const pool = server.pool();
    await pool.warm(4, { ...get(server.port), method: "HEAD" });
    expect(server.connections()).toBe(4);
    // Warming again finds them idle and opens none.
    await pool.warm(4, { ...get(server.port), method: "HEAD" });
    expect(server.connections()).toBe(4);
    await Promise.all(Array.from({ length: 4 }, () => pool.request(get(server.port))));
    expect(server.requests()).toBe(8);
    expect(server.connections()).toBe(4);
  });

  it("ends a HEAD response at its head and keeps the connection for the next request", async () => {
    const server = await httpServer((req, res) => {
      res.setHeader("content-length", "1000");
      res.end(req.method === "HEAD" ? undefined : "x".repeat(1000));
    });
    const pool = server.pool();
    const head = await pool.request({ ...get(server.port), method: "HEAD" }, keepAll);
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1000");
    expect(head.bodyBytes).toBe(0);
    const body = await pool.request(get(server.port), keepAll);
    expect(body.body?.toString()).toBe("x".repeat(1000));
    expect(server.connections()).toBe(1);
  });

  it("receives a chunked response body whole and reuses the connection after it", async () => {
    const parts = [randomBytes(100_000), Buffer.from("small"), randomBytes(3 * MiB + 17), Buffer.from("end")];
    const server = await httpServer(async (_req, res) => {
      for (const part of parts) {
        res.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const pool = server.pool();
    let firstBytes = 0;
    const response = await pool.request(get(server.port), {
      keepBody: () => true,
      onFirstBodyByte: () => firstBytes++,
    });
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    const whole = Buffer.concat(parts);
    // KEPT_BODY caps a kept body at 1 MiB; the count covers all of it.
    expect(response.bodyBytes).toBe(whole.length);
    expect(response.body?.equals(whole.subarray(0, MiB))).toBe(true);
    expect(firstBytes).toBe(1);
    const again = await pool.request(get(server.port), keepAll);
    expect(again.bodyBytes).toBe(whole.length);
    expect(server.connections()).toBe(1);
  });

  it("keeps a whole chunked body under 1 MiB byte-exact", async () => {
    const parts = [randomBytes(1000), randomBytes(70_000), randomBytes(1)];
    const server = await httpServer(async (_req, res) => {
      for (const part of parts) {
        res.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const response = await server.pool().request(get(server.port), keepAll);
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    expect(response.body?.equals(Buffer.concat(parts))).toBe(true);
  });

  it("survives the server closing an idle keep-alive connection", async () => {
    const server = await httpServer(
      (_req, res) => res.end("ok"),
      (s) => (s.keepAliveTimeout = 50),
    );
    const pool = server.pool();
    expect((await pool.request(get(server.port), keepAll)).body?.toString()).toBe("ok");
    // Long past the server's keep-alive timeout: it has closed the connection.
    await waitUntil(() => server.sockets.size === 0, "the server to close the idle connection");
    await sleep(50);
    const second = await pool.request(get(server.port), keepAll);
    expect(second.status).toBe(200);
    expect(second.body?.toString()).toBe("ok");
    expect(server.connections()).toBe(2);
  });

  it("sends a request again on a new connection when a reused one is closed without a response", async () => {
    // The server drops the second request of every connection unanswered, as a stale socket would.
    const perSocket = new WeakMap<net.Socket, number>();
    const server = await httpServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2) req.socket.destroy();
      else res.end(`served ${req.url}`);
    });
    const pool = server.pool();
    expect((await pool.request(get(server.port, "/first"), keepAll)).body?.toString()).toBe("served /first");
    const second = await pool.request(get(server.port, "/second"), keepAll);
    expect(second.status).toBe(200);
    expect(second.body?.toString()).toBe("served /second");
    expect(server.connections()).toBe(2);
    expect(server.requests()).toBe(3);
  });

  it("does not send a request again when a fresh connection fails", async () => {
    const server = await httpServer((req) => req.socket.destroy());
    const pool = server.pool();
    await expect(pool.request(get(server.port), keepAll)).rejects.toThrow(/closed the connection/);
    expect(server.requests()).toBe(1);
    expect(server.connections()).toBe(1);
  });

  it("fails a request the server never answers, mentioning no bytes, and closes its connection", async () => {
    let received = "";
    const server = await tcpServer((_socket, data) => (received += data.toString("latin1")));
    const pool = server.pool(300);
    await expect(pool.request(get(server.port, "/hang"), keepAll)).rejects.toThrow(/no bytes/);
    expect(received).toMatch(/^GET \/hang HTTP\/1\.1\r\n/);
    await waitUntil(() => server.sockets.size === 0, "the client to close the connection");
  });

  it("rejects with the abort reason when the signal is aborted mid-request", async () => {
    const server = await tcpServer(() => {});
    // The idle timeout is far away: only the abort can end this request.
    const pool = server.pool(120_000);
    const controller = new AbortController();
    const reason = new Error("stop this request");
    const pending = pool.request(get(server.port), { ...keepAll, signal: controller.signal });
    await waitUntil(() => server.requests() > 0, "the request to reach the server");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await waitUntil(() => server.sockets.size === 0, "the client to close the connection");
  });

  it("rejects as AbortError on an abort without reason, and not at all for a signal aborted before", async () => {
    const server = await tcpServer(() => {});
    const pool = server.pool(120_000);
    const controller = new AbortController();
    const pending = pool.request(get(server.port), { signal: controller.signal });
    await waitUntil(() => server.requests() > 0, "the request to reach the server");
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const before = server.connections();
    await expect(pool.request(get(server.port), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(server.connections()).toBe(before);
  });

  it("sends a Buffer body byte-exact", async () => {
    const server = await httpServer(hashingHandler);
    const body = randomBytes(2 * MiB + 3);
    const response = await server
      .pool()
      .request({ ...get(server.port, "/put"), method: "PUT", body, contentLength: body.length }, keepAll);
    expect(JSON.parse(response.body!.toString())).toEqual({
      bytes: body.length,
      contentLength: String(body.length),
      sha256: sha256(body),
    });
  });

  it("streams a produced body of exactly contentLength bytes from one reused buffer", async () => {
    const server = await httpServer(hashingHandler);
    const size = 9 * MiB + 777;
    const chunk = 256 * 1024 + 3;
    // Byte n of the body is a function of n; the producer refills one buffer as soon as a write resolves,
    // so a write that resolved before the socket was done with the buffer would corrupt the body.
    const fill = (into: Buffer, offset: number, length: number) => {
      for (let j = 0; j < length; j++) into[j] = ((offset + j) * 31 + ((offset + j) >> 16)) & 0xff;
      return into.subarray(0, length);
    };
    const expected = createHash("sha256");
    for (let offset = 0; offset < size; offset += chunk)
      expected.update(fill(Buffer.alloc(chunk), offset, Math.min(chunk, size - offset)));
    const producer = async (write: WriteChunk) => {
      const buffer = Buffer.allocUnsafe(chunk);
      for (let offset = 0; offset < size; offset += chunk)
        await write(fill(buffer, offset, Math.min(chunk, size - offset)));
    };
    const pool = server.pool();
    const response = await pool.request(
      { ...get(server.port, "/stream"), method: "PUT", body: producer, contentLength: size },
      keepAll,
    );
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body!.toString())).toEqual({
      bytes: size,
      contentLength: String(size),
      sha256: expected.digest("hex"),
    });
    // The connection carried the whole request: it serves the next one.
    expect((await pool.request(get(server.port), keepAll)).status).toBe(200);
    expect(server.connections()).toBe(1);
  });

  it("surfaces a 403 sent before a large streamed body was read, then serves the next request on a new connection", async () => {
    const server = await httpServer((req, res) => {
      if (req.url === "/upload") {
        res.writeHead(403, { "content-type": "application/xml" });
        res.end("<Error><Code>AccessDenied</Code></Error>");
      } else res.end("fine");
    });
    const pool = server.pool();
    const size = 256 * MiB;
    let written = 0;
    let producerSettled = false;
    const producer = async (write: WriteChunk) => {
      const buffer = Buffer.alloc(MiB, 1);
      try {
        for (let offset = 0; offset < size; offset += MiB) {
          await write(buffer);
          written += MiB;
        }
      } finally {
        producerSettled = true;
      }
    };
    const response = await pool.request(
      { ...get(server.port, "/upload"), method: "PUT", body: producer, contentLength: size },
      keepAll,
    );
    expect(response.status).toBe(403);
    expect(response.body?.toString()).toContain("AccessDenied");
    expect(written).toBeLessThan(size);
    // The producer is not left hanging on a write that never resolves.
    await waitUntil(() => producerSettled, "the body producer to stop");

    const next = await pool.request(get(server.port, "/after"), keepAll);
    expect(next.status).toBe(200);
    expect(next.body?.toString()).toBe("fine");
    expect(server.connections()).toBe(2);
  });

  it("surfaces a 403 sent before a large Buffer body was read, then serves the next request", async () => {
    const server = await httpServer((req, res) => {
      if (req.url === "/upload") {
        res.writeHead(403);
        res.end("denied");
      } else res.end("fine");
    });
    const pool = server.pool();
    const body = Buffer.alloc(128 * MiB, 7);
    const response = await pool.request(
      { ...get(server.port, "/upload"), method: "PUT", body, contentLength: body.length },
      keepAll,
    );
    expect(response.status).toBe(403);
    expect(response.body?.toString()).toBe("denied");
    const next = await pool.request(get(server.port, "/after"), keepAll);
    expect(next.body?.toString()).toBe("fine");
    expect(server.connections()).toBe(2);
  });

  it("fails a request to a port nobody listens on with the connect error", async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    await expect(poolFor(port).request(get(port))).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("does not reuse a connection that sent bytes past the end of a response", async () => {
    const server = await tcpServer((socket, data) => {
      if (data.includes("\r\n\r\n")) socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiGARBAGE");
    });
    const pool = server.pool();
    const first = await pool.request(get(server.port), keepAll);
    expect(first.body?.toString()).toBe("hi");
    const second = await pool.request(get(server.port), keepAll);
    expect(second.status).toBe(200);
    expect(second.body?.toString()).toBe("hi");
    expect(server.connections()).toBe(2);
  });
});

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Answers with the request body's size and SHA-256, and its Content-Length header. */
function hashingHandler(req: http.IncomingMessage, res: http.ServerResponse) {
  const hash = createHash("sha256");
  let bytesIn = 0;
  req.on("data", (data: Buffer) => {
    bytesIn += data.length;
    hash.update(data);
  });
  req.on("end", () =>
    res.end(
      JSON.stringify({
        bytes: bytesIn,
        contentLength: req.headers["content-length"],
        sha256: hash.digest("hex"),
      }),
    ),
  );
}
