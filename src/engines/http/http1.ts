/**
 * A keep-alive HTTP/1.1 client for the timed requests of the object engines (the S3 data plane, Kubo
 * add/cat), on raw sockets. Why not node:http (which the SDK uses): every 64 KiB socket read there is a
 * fresh buffer, a parser callback and a stream event, and one event loop then tops out well below what
 * the store serves (`npm run bench`: GET of 64 MiB objects at ~2.5 CPU-s/GiB against s5cmd's 0.7; over
 * this client 0.43). Here a plain-HTTP connection reads into one static buffer (`onread`), bodies are
 * counted or copied out as they arrive, and request bodies are written with back-pressure from buffers
 * the caller reuses. TLS connections use the same parser over 'data' events.
 */
import net from "node:net";
import tls from "node:tls";
import { marked, type BenchspecError } from "../../platform/errors.js";
import type { NetworkTimeouts } from "../../platform/timeouts.js";
import { HttpParseError, ResponseParser, type ResponseHead } from "./response-parser.js";

export interface Origin {
  protocol: "http:" | "https:";
  hostname: string;
  port: number;
}

/**
 * Where to connect for `url` (an http or https URL; `what` names it in the error), with `hostname` in
 * place of the URL's (a virtual-hosted bucket).
 */
export function originOf(url: URL, what: string, hostname = url.hostname): Origin {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${what} ${url.href}: only http and https are supported`);
  return {
    protocol: url.protocol,
    hostname: hostname.replace(/^\[(.*)\]$/, "$1"),
    port: Number(url.port) || (url.protocol === "https:" ? 443 : 80),
  };
}

/** Writes one body chunk; resolves once the socket has handed it to the kernel, so its buffer is free again. */
export type WriteChunk = (chunk: Buffer) => Promise<void>;

export interface WireRequest {
  method: string;
  /** Path and query string, encoded. */
  target: string;
  headers: Readonly<Record<string, string>>;
  /** A buffer, or a producer that writes exactly contentLength bytes (called again if the request is retried). */
  body?: Buffer | ((write: WriteChunk) => Promise<void>);
  contentLength?: number;
}

export interface WireResponse {
  status: number;
  statusText: string;
  headers: Map<string, string>;
  /** Body bytes received. */
  bodyBytes: number;
  /** The body, when `keepBody` asked for it (at most KEPT_BODY bytes). */
  body?: Buffer;
}

export interface ExchangeOptions {
  signal?: AbortSignal;
  /** Called once, when the first body byte arrives. */
  onFirstBodyByte?: () => void;
  /** Body bytes as they move: request body bytes once the socket took them, response body bytes as read. */
  onBodyBytes?: (bytes: number) => void;
  /** Whether to keep a response's body (error documents), decided from its status. */
  keepBody?: (status: number) => boolean;
}

/** What a caller hears of a transfer as it happens. */
export type Progress = Pick<ExchangeOptions, "onFirstBodyByte" | "onBodyBytes">;

/** Request bodies given as one buffer are written in slices of this size. */
const PROGRESS_SLICE = 2 ** 20;

/** A timeout, as Node reports its own (ETIMEDOUT), marked for the runner: the server stopped answering. */
const timedOut = (message: string): BenchspecError =>
  marked("target-unresponsive", Object.assign(new Error(message), { code: "ETIMEDOUT" }));

const READ_BUFFER = 1 << 20;
const KEPT_BODY = 1 << 20;

class Connection {
  readonly socket: net.Socket;
  /** Set while a request is in flight. */
  onData: ((data: Buffer) => void) | undefined;
  onEnd: ((error?: Error) => void) | undefined;
  closed = false;
  /** It served a request before: a failure before any response byte may just be a stale keep-alive socket. */
  reused = false;

  constructor(origin: Origin, options: NetworkTimeouts, onIdleClose: (c: Connection) => void) {
    const deliver = (data: Buffer) => {
      if (this.onData) this.onData(data);
      else this.socket.destroy(new HttpParseError("the server sent bytes outside a response"));
    };
    if (origin.protocol === "https:") {
      this.socket = tls.connect({ host: origin.hostname, port: origin.port, servername: origin.hostname });
      this.socket.on("data", deliver);
    } else {
      const buffer = Buffer.allocUnsafe(READ_BUFFER);
      this.socket = net.connect({
        host: origin.hostname,
        port: origin.port,
        onread: { buffer, callback: (n: number) => (deliver(buffer.subarray(0, n)), true) },
      } as net.NetConnectOpts);
    }
    this.socket.setNoDelay(true);
    const connectTimer = setTimeout(
      () => this.socket.destroy(timedOut(`connect ETIMEDOUT ${origin.hostname}:${origin.port}`)),
      options.connectTimeoutMs,
    );
    this.socket.once(origin.protocol === "https:" ? "secureConnect" : "connect", () =>
      clearTimeout(connectTimer),
    );
    this.socket.on("error", (error) => this.onEnd?.(error));
    // Armed only while a request is in flight (see exchange).
    this.socket.on("timeout", () =>
      this.onEnd?.(timedOut(`no bytes from the server for ${options.idleTimeoutMs / 1000} s`)),
    );
    this.socket.on("close", () => {
      clearTimeout(connectTimer);
      this.closed = true;
      if (this.onEnd) this.onEnd();
      else onIdleClose(this);
    });
  }
}

export class ConnectionPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();

  constructor(
    private readonly origin: Origin,
    private readonly options: NetworkTimeouts,
  ) {}

  async request(request: WireRequest, options: ExchangeOptions = {}): Promise<WireResponse> {
    options.signal?.throwIfAborted();
    for (;;) {
      const connection = this.acquire();
      const outcome = await exchange(connection, request, options, this.options.idleTimeoutMs);
      if (outcome.ok) {
        if (outcome.reusable) this.release(connection);
        else this.discard(connection);
        return outcome.response;
      }
      this.discard(connection);
      // A keep-alive socket the server closed while it sat idle fails before any byte of a response;
      // the request never reached the server, so it is sent again on a new connection (once per stale one).
      if (!(connection.reused && outcome.beforeResponse && !options.signal?.aborted)) throw outcome.error;
    }
  }

  /**
   * Opens up to `count` connections with a cheap request each (all at once, so none is reused) and keeps
   * them for the timed requests: a timed window then holds no connection set-up, as a compiled script's
   * (whose curls connect before the start barrier). Any answer will do, an error status too (credentials
   * may not allow the request): the connection is open either way.
   */
  async warm(count: number, request: WireRequest, signal?: AbortSignal): Promise<void> {
    const fresh = Math.max(0, count - this.idle.length);
    await Promise.all(Array.from({ length: fresh }, () => this.request(request, { signal })));
  }

  destroy(): void {
    for (const connection of this.all) connection.socket.destroy();
    this.all.clear();
    this.idle.length = 0;
  }

  private acquire(): Connection {
    const reusable = this.idle.pop();
    if (reusable) return reusable;
    const connection = new Connection(this.origin, this.options, (c) => this.discard(c));
    this.all.add(connection);
    return connection;
  }

  private release(connection: Connection) {
    connection.reused = true;
    this.idle.push(connection);
  }

  private discard(connection: Connection) {
    connection.socket.destroy();
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
  }
}

type Outcome =
  | { ok: true; response: WireResponse; reusable: boolean }
  | { ok: false; error: Error; beforeResponse: boolean };

function exchange(
  connection: Connection,
  request: WireRequest,
  options: ExchangeOptions,
  idleTimeoutMs: number,
): Promise<Outcome> {
  const { socket } = connection;
  return new Promise<Outcome>((resolve) => {
    let head: ResponseHead | undefined;
    let response: WireResponse | undefined;
    let kept: Buffer[] | undefined;
    let keptBytes = 0;
    let received = false;
    let bodyWritten = request.body === undefined;
    let settled = false;

    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      connection.onData = undefined;
      connection.onEnd = undefined;
      socket.setTimeout(0);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const fail = (error: Error) => {
      settle({ ok: false, error, beforeResponse: !received });
      socket.destroy();
    };
    const onAbort = () => fail(abortError(options.signal!));

    const parser = new ResponseParser(
      {
        head(h) {
          head = h;
          response = { status: h.status, statusText: h.statusText, headers: h.headers, bodyBytes: 0 };
          if (options.keepBody?.(h.status)) kept = [];
        },
        body(bytes) {
          if (response!.bodyBytes === 0) options.onFirstBodyByte?.();
          response!.bodyBytes += bytes.length;
          options.onBodyBytes?.(bytes.length);
          if (kept && keptBytes < KEPT_BODY) {
            const copy = Buffer.from(bytes.subarray(0, KEPT_BODY - keptBytes));
            kept.push(copy);
            keptBytes += copy.length;
          }
        },
        end() {
          if (kept) response!.body = Buffer.concat(kept);
          // A response that came before its request's body was sent (an early error) leaves the
          // connection mid-request: it cannot carry another one.
          const reusable = head!.keepAlive && bodyWritten && !connection.closed;
          settle({ ok: true, response: response!, reusable });
        },
      },
      request.method === "HEAD",
    );

    connection.onData = (data) => {
      received = true;
      try {
        if (parser.feed(data) > 0) connection.socket.destroy(); // bytes past the response: not reusable
      } catch (error) {
        fail(error as Error);
      }
    };
    connection.onEnd = (error) => {
      if (error) return fail(error);
      try {
        parser.close();
      } catch (closed) {
        fail(closed as Error);
      }
    };
    socket.setTimeout(idleTimeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (connection.closed)
      return fail(new HttpParseError("the connection closed before the request was sent"));

    const headText = requestHead(request);
    const { body } = request;
    if (body === undefined) socket.write(headText, "latin1");
    else if (Buffer.isBuffer(body)) {
      // In slices (views, not copies), each its own write, so progress is seen as the body goes out rather
      // than once at its end; the head goes out together with the first slice.
      const slices = Math.max(1, Math.ceil(body.length / PROGRESS_SLICE));
      socket.cork();
      socket.write(headText, "latin1");
      for (let i = 0; i < slices; i++) {
        const slice = body.subarray(i * PROGRESS_SLICE, (i + 1) * PROGRESS_SLICE);
        socket.write(slice, (error) => {
          if (error) return;
          options.onBodyBytes?.(slice.length);
          if (i === slices - 1) bodyWritten = true;
        });
        if (i === 0) socket.uncork();
      }
    } else {
      socket.write(headText, "latin1");
      const write: WriteChunk = (chunk) =>
        new Promise((done, rejected) => {
          if (settled) return rejected(new Error("the request ended before its body was sent"));
          socket.write(chunk, (error) => {
            if (error) return rejected(error);
            options.onBodyBytes?.(chunk.length);
            done();
          });
        });
      body(write).then(
        () => (bodyWritten = true),
        (error: Error) => fail(error),
      );
    }
  });
}

function requestHead(request: WireRequest): string {
  let text = `${request.method} ${request.target} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(request.headers)) text += `${name}: ${value}\r\n`;
  if (request.contentLength !== undefined) text += `content-length: ${request.contentLength}\r\n`;
  return `${text}\r\n`;
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error("the operation was aborted"), { name: "AbortError" });
}
