/**
 * A null S3 server for the bench: it stores nothing and checks nothing, so a client measured against it
 * meets no server cost beyond the kernel's — the most this machine allows the client alone. PUT bodies are
 * read and dropped (only each key's size is kept); a GET sends the recorded size out of one static 256 KiB
 * buffer (small enough to stay in the CPU's cache for the kernel's copy), over and over. Signatures are
 * not verified: any credentials do. It answers what the engine, warp and s5cmd's `rm` ask in the bench:
 * PUT/GET/HEAD/DELETE object, ListObjectsV2, DeleteObjects, HeadBucket, CreateBucket, GetBucketLocation,
 * GetBucketVersioning and ListMultipartUploads (both always empty); anything else is answered 501
 * NotImplemented and logged on stderr. Every bucket exists.
 *
 * HTTP/1.1 over raw `node:net` sockets read into one static buffer (`onread`) with a minimal parser:
 * keep-alive, `Expect: 100-continue`, Content-Length and chunked request bodies (an aws-chunked body is
 * drained as it is framed, its object size taken from x-amz-decoded-content-length). Server CPU per GiB
 * on the engine's 64 MiB PUTs (8 in flight): 0.33 CPU-s/GiB, nearly all of it the kernel's receive; the
 * same parser on sockets' 'data' events (a fresh buffer per read) 0.76, `node:http` 1.0–1.35.
 *
 *   node --import tsx bench/null-s3.ts     prints its port on stdout; on SIGTERM prints its totals
 *                                          (JSON: CPU seconds, bytes in and out) and exits.
 * NULL_S3_LOG=1 logs every request's method and target on stderr.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { fileURLToPath } from "node:url";

const BLOCK = Buffer.alloc(256 * 1024, 0x5a);
const ETAG = '"4e756c6c53334e756c6c53334e756c6c"';
const XMLNS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
/** A request head larger than this is refused (and its connection closed). */
const MAX_HEAD = 64 * 1024;
/** Bodies kept (DeleteObjects' XML) larger than this are refused. */
const MAX_KEPT_BODY = 16 * 2 ** 20;
const LOG = process.env.NULL_S3_LOG === "1";

const STATUS: Record<number, string> = {
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  404: "Not Found",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  501: "Not Implemented",
};

/** Each bucket's keys and their sizes; a bucket exists once it is named. */
const buckets = new Map<string, Bucket>();

class Bucket {
  readonly sizes = new Map<string, number>();
  private sorted: string[] | undefined;

  set(key: string, size: number) {
    if (!this.sizes.has(key)) this.sorted = undefined;
    this.sizes.set(key, size);
  }

  delete(key: string) {
    if (this.sizes.delete(key)) this.sorted = undefined;
  }

  /** The keys in S3's order (UTF-8 bytes; code units agree for the keys clients send here). */
  keys(): string[] {
    return (this.sorted ??= [...this.sizes.keys()].sort());
  }
}

const bucket = (name: string) => {
  let found = buckets.get(name);
  if (!found) buckets.set(name, (found = new Bucket()));
  return found;
};

const totals = { in: 0, out: 0, requests: 0 };

/** Date and Last-Modified: the time at start-up stands for every object's. */
const started = new Date();
const lastModified = started.toUTCString();
const isoModified = started.toISOString();
let date = lastModified;

interface Request {
  method: string;
  /** Decoded path: "/bucket/key". */
  path: string;
  query: URLSearchParams;
  headers: Map<string, string>;
}

interface Reply {
  status: number;
  /** Extra header lines, each ending in \r\n. */
  headers?: string;
  /** A small body (XML). */
  body?: string | Buffer;
  /** An object's length: sent from BLOCK (GET), or only announced (HEAD). */
  object?: number;
}

const xml = (body: string) => ({
  headers: "Content-Type: application/xml\r\n",
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`);
const unescape = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[\da-f]+);/gi, (_, e: string) =>
    e[0] === "#"
      ? String.fromCodePoint(Number(e[1] === "x" || e[1] === "X" ? `0${e.slice(1)}` : e.slice(1)))
      : { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[e.toLowerCase()]!,
  );

function error(status: number, code: string, request: Request): Reply {
  if (status === 501 || status === 400) process.stderr.write(`null-s3: ${code}: ${describe(request)}\n`);
  return {
    status,
    ...(request.method === "HEAD"
      ? {}
      : xml(
          `<Error><Code>${code}</Code><Message>${code}</Message><Resource>${escape(request.path)}</Resource></Error>`,
        )),
  };
}

const describe = (request: Request) =>
  `${request.method} ${request.path}${request.query.size ? `?${request.query}` : ""}`;

/** What the head says of the object a PUT carries: its size, if the body's framing does not tell it. */
const declaredSize = (request: Request) => {
  const decoded = request.headers.get("x-amz-decoded-content-length");
  return decoded === undefined ? undefined : Number(decoded);
};

/** Answers one request whose body (`received` bytes; `kept` when it was kept) has been read. */
function answer(request: Request, received: number, kept: Buffer | undefined): Reply {
  const { method, path, query } = request;
  const slash = path.indexOf("/", 1);
  const name = path.slice(1, slash < 0 ? undefined : slash);
  const key = slash < 0 ? "" : path.slice(slash + 1);
  if (name === "") {
    if (method === "GET") {
      const list = [...buckets.keys()].map(
        (b) => `<Bucket><Name>${escape(b)}</Name><CreationDate>${isoModified}</CreationDate></Bucket>`,
      );
      return {
        status: 200,
        ...xml(
          `<ListAllMyBucketsResult ${XMLNS}><Buckets>${list.join("")}</Buckets></ListAllMyBucketsResult>`,
        ),
      };
    }
    return error(501, "NotImplemented", request);
  }
  const b = bucket(name);
  if (key === "") return bucketOp(request, name, b, kept);
  if (query.has("uploads") || query.has("uploadId") || query.has("partNumber"))
    return error(501, "NotImplemented", request);
  switch (method) {
    case "PUT":
      if (request.headers.has("x-amz-copy-source")) return error(501, "NotImplemented", request);
      b.set(key, declaredSize(request) ?? received);
      return { status: 200, headers: `ETag: ${ETAG}\r\n` };
    case "GET":
    case "HEAD": {
      const size = b.sizes.get(key);
      if (size === undefined) return error(404, "NoSuchKey", request);
      if (request.headers.has("range")) return error(501, "NotImplemented", request);
      return {
        status: 200,
        headers: `ETag: ${ETAG}\r\nLast-Modified: ${lastModified}\r\nContent-Type: application/octet-stream\r\nAccept-Ranges: bytes\r\n`,
        object: size,
      };
    }
    case "DELETE":
      b.delete(key);
      return { status: 204 };
  }
  return error(501, "NotImplemented", request);
}

function bucketOp(request: Request, name: string, b: Bucket, kept: Buffer | undefined): Reply {
  const { method, query } = request;
  if (method === "HEAD" && query.size === 0) return { status: 200 };
  if (method === "PUT" && query.size === 0) return { status: 200, headers: `Location: /${name}\r\n` };
  if (method === "DELETE" && query.size === 0) {
    buckets.delete(name);
    return { status: 204 };
  }
  if (method === "GET" && query.has("location"))
    return { status: 200, ...xml(`<LocationConstraint ${XMLNS}></LocationConstraint>`) };
  if (method === "GET" && query.has("versioning"))
    return { status: 200, ...xml(`<VersioningConfiguration ${XMLNS}></VersioningConfiguration>`) };
  if (method === "GET" && query.has("uploads"))
    return {
      status: 200,
      ...xml(
        `<ListMultipartUploadsResult ${XMLNS}><Bucket>${escape(name)}</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`,
      ),
    };
  if (method === "GET" && query.get("list-type") === "2") return listV2(request, name, b);
  if (method === "POST" && query.has("delete") && kept) {
    const keys = [...kept.toString("utf8").matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescape(m[1]!));
    for (const key of keys) b.delete(key);
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(kept.toString("utf8"));
    const deleted = quiet ? "" : keys.map((k) => `<Deleted><Key>${escape(k)}</Key></Deleted>`).join("");
    return { status: 200, ...xml(`<DeleteResult ${XMLNS}>${deleted}</DeleteResult>`) };
  }
  return error(501, "NotImplemented", request);
}

/** ListObjectsV2: prefix, delimiter, start-after, continuation-token (the last key sent), max-keys. */
function listV2(request: Request, name: string, b: Bucket): Reply {
  const { query } = request;
  const prefix = query.get("prefix") ?? "";
  const delimiter = query.get("delimiter") ?? "";
  const token = query.get("continuation-token");
  const after =
    token !== null ? Buffer.from(token, "base64url").toString("utf8") : (query.get("start-after") ?? "");
  const max = Math.min(Number(query.get("max-keys") ?? 1000) || 1000, 1000);
  const url = query.get("encoding-type") === "url";
  const encode = (k: string) => escape(url ? encodeURIComponent(k).replace(/%2F/g, "/") : k);
  const keys = b.keys();
  // First key after `after` and under `prefix`: a binary search for the greater of the two.
  const from = after > prefix ? after : prefix;
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < from || (keys[mid] === after && after !== "")) lo = mid + 1;
    else hi = mid;
  }
  const contents: string[] = [];
  const prefixes = new Set<string>();
  let last = "";
  let truncated = false;
  for (let i = lo; i < keys.length; i++) {
    const key = keys[i]!;
    if (key <= after && after !== "") continue;
    if (!key.startsWith(prefix)) break;
    if (contents.length + prefixes.size >= max) {
      truncated = true;
      break;
    }
    last = key;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (cut >= 0) {
      const common = key.slice(0, cut + delimiter.length);
      prefixes.add(common);
      // Past every key under this common prefix.
      while (i + 1 < keys.length && keys[i + 1]!.startsWith(common)) last = keys[++i]!;
      continue;
    }
    contents.push(
      `<Contents><Key>${encode(key)}</Key><LastModified>${isoModified}</LastModified><ETag>&quot;4e756c6c53334e756c6c53334e756c6c&quot;</ETag><Size>${b.sizes.get(key)}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    );
  }
  const common = [...prefixes].map((p) => `<CommonPrefixes><Prefix>${encode(p)}</Prefix></CommonPrefixes>`);
  return {
    status: 200,
    ...xml(
      `<ListBucketResult ${XMLNS}><Name>${escape(name)}</Name><Prefix>${encode(prefix)}</Prefix>` +
        (delimiter ? `<Delimiter>${encode(delimiter)}</Delimiter>` : "") +
        (url ? "<EncodingType>url</EncodingType>" : "") +
        (token !== null ? `<ContinuationToken>${escape(token)}</ContinuationToken>` : "") +
        (query.has("start-after") ? `<StartAfter>${encode(query.get("start-after")!)}</StartAfter>` : "") +
        `<KeyCount>${contents.length + prefixes.size}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
        (truncated
          ? `<NextContinuationToken>${Buffer.from(last).toString("base64url")}</NextContinuationToken>`
          : "") +
        `${contents.join("")}${common.join("")}</ListBucketResult>`,
    ),
  };
}

/** Writes a reply: the head and a small body, or an object's bytes from BLOCK, in one writev. */
function send(socket: net.Socket, request: Request, reply: Reply, close: boolean) {
  const body = typeof reply.body === "string" ? Buffer.from(reply.body) : reply.body;
  const length = reply.object ?? body?.length ?? 0;
  const head =
    `HTTP/1.1 ${reply.status} ${STATUS[reply.status]}\r\nDate: ${date}\r\nServer: null-s3\r\n` +
    `x-amz-request-id: 0\r\n${reply.headers ?? ""}` +
    (reply.status === 204 ? "" : `Content-Length: ${length}\r\n`) +
    (close ? "Connection: close\r\n\r\n" : "\r\n");
  socket.cork();
  socket.write(head, "latin1");
  if (request.method !== "HEAD") {
    if (body) socket.write(body);
    else if (reply.object) {
      totals.out += reply.object;
      for (let left = reply.object; left > 0; left -= BLOCK.length)
        socket.write(left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left));
    }
  }
  socket.uncork();
  if (close) socket.end();
}

/** Parses a request head (request line and header lines, no final CRLF); undefined if it is not HTTP/1.x. */
function parseHead(text: string): { request: Request; version: string } | undefined {
  const lines = text.split("\r\n");
  const [method, target, version] = lines[0]!.split(" ");
  if (!method || !target || !version?.startsWith("HTTP/1.")) return undefined;
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const question = target.indexOf("?");
  const rawPath = question < 0 ? target : target.slice(0, question);
  let path: string;
  try {
    path = decodeURIComponent(rawPath.startsWith("/") ? rawPath : new URL(rawPath).pathname);
  } catch {
    return undefined;
  }
  const query = new URLSearchParams(question < 0 ? "" : target.slice(question + 1));
  return { request: { method, path, query, headers }, version };
}

const CRLF2 = Buffer.from("\r\n\r\n");

/**
 * One connection's parser. States: reading a head; a body of known length; a chunked body's size line,
 * data, data's CRLF, trailer lines. `pending` holds the bytes of a head or a line not yet complete (copied:
 * the read buffer is reused).
 */
class Connection {
  private state: "head" | "length" | "size" | "data" | "data-end" | "trailer" = "head";
  private pending: Buffer | undefined;
  private line = "";
  private remaining = 0;
  private received = 0;
  private kept: Buffer[] | undefined;
  private request: Request | undefined;
  private close = false;
  /** Refused: the connection is being closed, nothing more is read. */
  private done = false;

  constructor(private readonly socket: net.Socket) {}

  /** Handles `n` bytes read into `buffer`; false once the connection is done with. */
  read(buffer: Buffer, n: number): boolean {
    let at = 0;
    while (at < n) {
      if (this.done || this.socket.destroyed) return false;
      switch (this.state) {
        case "head": {
          const end = this.headEnd(buffer, at, n);
          if (end < 0) return !this.done;
          at = end;
          if (!this.startRequest()) return false;
          break;
        }
        case "length":
        case "data": {
          const take = Math.min(this.remaining, n - at);
          this.body(buffer, at, take);
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            if (this.state === "length") this.finish();
            else this.state = "data-end";
          }
          break;
        }
        case "data-end":
          // The CRLF after a chunk's data.
          this.remaining++;
          at++;
          if (this.remaining === 2) {
            this.remaining = 0;
            this.state = "size";
          }
          break;
        case "size":
        case "trailer": {
          const newline = buffer.indexOf(10, at);
          const stop = newline < 0 || newline >= n ? n : newline + 1;
          this.line += buffer.toString("latin1", at, stop);
          at = stop;
          if (!this.line.endsWith("\n")) {
            if (this.line.length > MAX_HEAD) return this.refuse(431);
            break;
          }
          const line = this.line.trim();
          this.line = "";
          if (this.state === "trailer") {
            if (line === "") this.finish();
          } else {
            const size = parseInt(line, 16);
            if (!Number.isFinite(size)) return this.refuse(400);
            if (size === 0) this.state = "trailer";
            else [this.state, this.remaining] = ["data", size];
          }
          break;
        }
      }
    }
    return !this.done;
  }

  /** Finds the end of a head from `at`; returns the offset after it, or -1 (the bytes kept in `pending`). */
  private headEnd(buffer: Buffer, at: number, n: number): number {
    if (!this.pending) {
      const end = buffer.indexOf(CRLF2, at);
      if (end >= 0 && end + 4 <= n) {
        this.line = buffer.toString("latin1", at, end);
        return end + 4;
      }
      this.pending = Buffer.from(buffer.subarray(at, n));
      return -1;
    }
    // The head began in an earlier read: look again from three bytes before this read's bytes.
    const before = this.pending.length;
    const joined = Buffer.concat([this.pending, buffer.subarray(at, n)]);
    const end = joined.indexOf(CRLF2, Math.max(0, before - 3));
    if (end < 0) {
      if (joined.length > MAX_HEAD) {
        this.refuse(431);
        return -1;
      }
      this.pending = joined;
      return -1;
    }
    this.pending = undefined;
    this.line = joined.toString("latin1", 0, end);
    return at + end + 4 - before;
  }

  /** The head is in `line`: sets up the body's reading; false if the request is refused. */
  private startRequest(): boolean {
    const head = this.line;
    this.line = "";
    if (head.length > MAX_HEAD) return this.refuse(431);
    // Blank lines between requests are allowed.
    if (head === "") return true;
    const parsed = parseHead(head.replace(/^(\r\n)+/, ""));
    if (!parsed) return this.refuse(400);
    const { request, version } = parsed;
    totals.requests++;
    if (LOG) process.stderr.write(`null-s3: ${describe(request)}\n`);
    const connection = request.headers.get("connection")?.toLowerCase();
    this.close = connection === "close" || (version === "HTTP/1.0" && connection !== "keep-alive");
    this.request = request;
    this.received = 0;
    this.kept = request.method === "POST" ? [] : undefined;
    if (request.headers.get("expect")?.toLowerCase() === "100-continue")
      this.socket.write("HTTP/1.1 100 Continue\r\n\r\n");
    if (/chunked\s*$/i.test(request.headers.get("transfer-encoding") ?? "")) {
      this.state = "size";
      return true;
    }
    const length = Number(request.headers.get("content-length") ?? 0);
    if (!Number.isSafeInteger(length) || length < 0) return this.refuse(400);
    if (this.kept && length > MAX_KEPT_BODY) return this.refuse(413);
    this.remaining = length;
    this.state = "length";
    if (length === 0) this.finish();
    return true;
  }

  private body(buffer: Buffer, at: number, take: number) {
    this.received += take;
    totals.in += take;
    if (this.kept) {
      if (this.received > MAX_KEPT_BODY) this.refuse(413);
      else this.kept.push(Buffer.from(buffer.subarray(at, at + take)));
    }
  }

  private finish() {
    const request = this.request!;
    const kept = this.kept && Buffer.concat(this.kept);
    this.state = "head";
    this.request = undefined;
    this.kept = undefined;
    send(this.socket, request, answer(request, this.received, kept), this.close);
  }

  private refuse(status: number): false {
    this.done = true;
    const why = `HTTP/1.1 ${status} ${STATUS[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
    this.socket.end(why);
    return false;
  }
}

/**
 * Every connection reads into one static buffer: `onread` (no allocation per read) is an option of a Socket
 * made on a handle, so each accepted connection's handle, still paused, goes to a Socket of our own.
 */
function serve() {
  const readBuffer = Buffer.allocUnsafe(128 * 1024);
  setInterval(() => (date = new Date().toUTCString()), 1000).unref();
  const server = net.createServer({ pauseOnConnect: true, noDelay: true }, (accepted) => {
    const holder = accepted as unknown as { _handle: unknown };
    const handle = holder._handle;
    holder._handle = null;
    let connection: Connection | undefined = undefined;
    const socket = new net.Socket({
      handle,
      readable: true,
      writable: true,
      onread: {
        buffer: readBuffer,
        // false stops reading: the connection was refused and is being closed.
        callback: (n: number, buffer: Uint8Array) => connection!.read(buffer as Buffer, n),
      },
    } as net.SocketConstructorOpts);
    connection = new Connection(socket);
    socket.on("error", () => socket.destroy());
    socket.resume();
  });
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${(server.address() as net.AddressInfo).port}\n`);
  });
  // The bench holds our stdin: when it ends, the bench is gone (killed without stopping us).
  process.stdin.on("end", () => process.exit(0)).resume();
  process.once("SIGTERM", () => {
    const cpu = process.cpuUsage();
    const report: NullS3Totals = { cpu: (cpu.user + cpu.system) / 1e6, ...totals };
    process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
  });
}

/** What the server did over its life: CPU seconds (start-up included), body bytes in and out, requests. */
export interface NullS3Totals {
  cpu: number;
  in: number;
  out: number;
  requests: number;
}

export interface NullS3 {
  /** http://127.0.0.1:port */
  endpoint: string;
  stop(): Promise<NullS3Totals | undefined>;
}

const FILE = fileURLToPath(import.meta.url);

/** Starts the server in a child process of its own (its CPU is not the bench process's); resolves once it listens. */
export async function launchNullS3(cwd: string): Promise<NullS3> {
  const child = spawn(process.execPath, ["--import", "tsx", FILE], {
    cwd,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  const exited = once(child, "exit");
  const listening = new Promise<string>((resolve, reject) => {
    const check = () => (/^\d+\n/.test(out) ? resolve(out.split("\n")[0]!) : undefined);
    child.stdout.on("data", check);
    void exited.then(([code]) => reject(new Error(`the null S3 server exited (${code}) before listening`)));
    child.once("error", reject);
  });
  const port = await Promise.race([
    listening,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("the null S3 server did not listen within 30 s")), 30_000).unref(),
    ),
  ]).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      const last = out.trim().split("\n").at(-1)!;
      return last.startsWith("{") ? (JSON.parse(last) as NullS3Totals) : undefined;
    },
  };
}

if (process.argv[1] === FILE) serve();
