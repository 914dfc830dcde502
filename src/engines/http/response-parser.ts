/**
 * An incremental HTTP/1.1 response parser for http1.ts: fed the bytes of one socket read at a time
 * (often the same static read buffer, so nothing here keeps a reference to what it is given), it reports
 * the head once, then body bytes, then the end. Handles Content-Length, chunked and read-until-close
 * bodies, bodiless responses (HEAD, 204, 304) and interim 1xx responses.
 */
import { BenchspecError } from "../../platform/errors.js";

export interface ResponseHead {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Map<string, string>;
  /** The server keeps the connection open after this response. */
  keepAlive: boolean;
}

export interface ResponseEvents {
  head(head: ResponseHead): void;
  /** A view of body bytes, valid only during the call. */
  body(bytes: Buffer): void;
  end(): void;
}

/** A class of its own for its name, which a failed row's error text starts with. */
export class HttpParseError extends BenchspecError {
  override name = "HttpParseError";
  constructor(message: string) {
    super("http-protocol", message);
  }
}

const MAX_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 1024;
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");

type State =
  | { kind: "head"; text: string }
  | { kind: "length"; remaining: number }
  | { kind: "chunk-size"; line: string }
  | { kind: "chunk-data"; remaining: number }
  | { kind: "chunk-crlf"; seen: number }
  | { kind: "trailer"; line: string }
  | { kind: "until-close" }
  | { kind: "done" };

export class ResponseParser {
  private state: State = { kind: "head", text: "" };

  /** @param bodiless the request was a HEAD: its response has headers only, whatever they announce. */
  constructor(
    private readonly events: ResponseEvents,
    private readonly bodiless = false,
  ) {}

  get done(): boolean {
    return this.state.kind === "done";
  }

  /** Whether the response's end is only known when the server closes the connection. */
  get endsAtClose(): boolean {
    return this.state.kind === "until-close";
  }

  /** Parses `data`; returns how many bytes were left over after the response ended (0 unless done). */
  feed(data: Buffer): number {
    let at = 0;
    while (at < data.length) {
      const state = this.state;
      switch (state.kind) {
        case "head": {
          // The head is copied out as latin1 (the read buffer is reused); only up to its end, when in sight.
          const found = data.indexOf(HEAD_END, at);
          const stop = Math.min(found >= 0 ? found + 4 : data.length, at + MAX_HEAD);
          const before = state.text.length;
          state.text += data.toString("latin1", at, stop);
          // The end may span two reads: search from just before what this read added.
          const end = state.text.indexOf("\r\n\r\n", Math.max(0, before - 3));
          if (end < 0) {
            if (state.text.length >= MAX_HEAD) throw new HttpParseError("response head over 64 KiB");
            return 0;
          }
          at += end + 4 - before;
          this.onHead(state.text.slice(0, end));
          break;
        }
        case "length":
          at = this.passBody(state, data, at);
          if (state.remaining === 0) this.finish();
          break;
        case "until-close":
          this.events.body(data.subarray(at));
          return 0;
        case "chunk-size": {
          const [next, complete] = takeLine(state, data, at, MAX_CHUNK_LINE, "chunk size line");
          at = next;
          if (!complete) break;
          const size = Number.parseInt(state.line.trim().split(";")[0]!, 16);
          if (!Number.isFinite(size) || size < 0 || !/^[0-9a-f]+/i.test(state.line.trim()))
            throw new HttpParseError(`bad chunk size line ${JSON.stringify(state.line.trim())}`);
          this.state = size === 0 ? { kind: "trailer", line: "" } : { kind: "chunk-data", remaining: size };
          break;
        }
        case "chunk-data":
          at = this.passBody(state, data, at);
          if (state.remaining === 0) this.state = { kind: "chunk-crlf", seen: 0 };
          break;
        case "chunk-crlf": {
          const expected = state.seen === 0 ? 13 : 10;
          if (data[at] !== expected) throw new HttpParseError("chunk data not followed by CRLF");
          at++;
          if (++state.seen === 2) this.state = { kind: "chunk-size", line: "" };
          break;
        }
        case "trailer": {
          const [next, complete] = takeLine(state, data, at, MAX_HEAD, "trailer");
          at = next;
          if (!complete) break;
          if (state.line === "\r\n" || state.line === "\n") this.finish();
          else state.line = "";
          break;
        }
        case "done":
          return data.length - at;
      }
    }
    return 0;
  }

  /** The connection closed: ends a read-until-close body, or says what was cut short. */
  close(): void {
    if (this.state.kind === "until-close") return this.finish();
    if (this.state.kind !== "done")
      throw new HttpParseError(
        this.state.kind === "head" && this.state.text === ""
          ? "the server closed the connection before responding"
          : "the server closed the connection in the middle of the response",
      );
  }

  private onHead(text: string) {
    const lines = text.split("\r\n");
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]!);
    if (!statusLine) throw new HttpParseError(`bad status line ${JSON.stringify(lines[0]!.slice(0, 100))}`);
    const status = Number(statusLine[2]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new HttpParseError(`bad header line ${JSON.stringify(line.slice(0, 100))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const previous = headers.get(name);
      headers.set(name, previous === undefined ? value : `${previous}, ${value}`);
    }
    if (status >= 100 && status < 200) {
      // An interim response (100 Continue): the real one follows.
      this.state = { kind: "head", text: "" };
      return;
    }
    const connection = headers.get("connection")?.toLowerCase() ?? "";
    const keepAlive =
      statusLine[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    this.events.head({ status, statusText: statusLine[3] ?? "", headers, keepAlive });
    const chunked = /(^|,)\s*chunked\s*$/i.test(headers.get("transfer-encoding") ?? "");
    const length = headers.get("content-length");
    if (this.bodiless || status === 204 || status === 304) this.finish();
    else if (chunked) this.state = { kind: "chunk-size", line: "" };
    else if (length !== undefined) {
      if (!/^\d+$/.test(length)) throw new HttpParseError(`bad Content-Length ${JSON.stringify(length)}`);
      const remaining = Number(length);
      if (remaining === 0) this.finish();
      else this.state = { kind: "length", remaining };
    } else this.state = { kind: "until-close" };
  }

  /** Hands the body bytes at `at` (at most `remaining`) to the listener; returns where they end. */
  private passBody(state: { remaining: number }, data: Buffer, at: number): number {
    const n = Math.min(state.remaining, data.length - at);
    this.events.body(data.subarray(at, at + n));
    state.remaining -= n;
    return at + n;
  }

  private finish() {
    this.state = { kind: "done" };
    this.events.end();
  }
}

/** Adds the bytes up to the next LF to `state.line`; returns where it stopped and whether the line ended. */
function takeLine(
  state: { line: string },
  data: Buffer,
  at: number,
  max: number,
  what: string,
): [number, boolean] {
  const lf = data.indexOf(10, at);
  const stop = lf < 0 ? data.length : lf + 1;
  state.line += data.toString("latin1", at, stop);
  if (state.line.length > max) throw new HttpParseError(`${what} too long`);
  return [stop, lf >= 0];
}
