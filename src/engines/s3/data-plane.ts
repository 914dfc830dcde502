/**
 * The S3 operations a benchmark times — PutObject, UploadPart, GetObject (whole or a range), HeadObject,
 * DeleteObject — sent over benchspec's own HTTP/1.1 connections (../http) and SigV4 signer. The SDK stays
 * in charge of everything else (creating and completing multipart uploads, listings, batch deletes): it
 * handles the XML, and none of it is on the clock per byte. The SDK still resolves the credentials, so the
 * standard AWS environment/profile chain works the same for both.
 *
 * Requests are the SDK's in substance: path-style or virtual-hosted addressing, UNSIGNED-PAYLOAD, no
 * checksums, no `Expect: 100-continue`; error responses become errors with the S3 code as name and the HTTP
 * status in `$metadata`, like the SDK's.
 */
import { payloadBody } from "../http/payload-body.js";
import type { Payload } from "../load/payload.js";
import type { S3Connection } from "../../targets/s3/client.js";
import {
  ConnectionPool,
  originOf,
  type Origin,
  type Progress,
  type WireRequest,
  type WireResponse,
} from "../http/http1.js";
import { RequestSigner, canonicalQuery, uriEncode, type SigningCredentials } from "./sigv4.js";

/** What the SDK's credential chain resolves to (`client.config.credentials()`). */
type Identity = SigningCredentials & { expiration?: Date };

export interface DataPlaneOptions {
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** Credentials that expire within this window are fetched again. */
const REFRESH_MS = 5 * 60_000;

export class S3DataPlane {
  private readonly pool: ConnectionPool;
  private readonly signer: RequestSigner;
  private readonly host: string;
  private readonly basePath: string;
  private credentials: Identity | undefined;
  private pending: Promise<Identity> | undefined;

  constructor(
    connection: S3Connection,
    private readonly provider: () => Promise<Identity>,
    options: DataPlaneOptions,
  ) {
    const { origin, host, basePath } = address(connection);
    this.pool = new ConnectionPool(origin, options);
    this.signer = new RequestSigner(connection.region);
    this.host = host;
    this.basePath = basePath;
  }

  async putObject(
    key: string,
    body: Buffer | Payload,
    signal: AbortSignal,
    progress: Progress = {},
  ): Promise<void> {
    await this.send("PUT", key, {}, signal, {}, body, progress);
  }

  /** Uploads one part; returns its ETag. */
  async uploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    body: Buffer,
    signal: AbortSignal,
    progress: Progress = {},
  ): Promise<string> {
    const response = await this.send(
      "PUT",
      key,
      { partNumber: String(partNumber), uploadId },
      signal,
      {},
      body,
      progress,
    );
    const etag = response.headers.get("etag");
    if (!etag) throw new Error(`UploadPart ${key} #${partNumber}: the response has no ETag`);
    return etag;
  }

  /** Reads the object (or `range`, e.g. "bytes=0-1023") to its end; returns the bytes received. */
  async getObject(key: string, range: string | undefined, signal: AbortSignal, progress: Progress = {}) {
    const response = await this.send("GET", key, {}, signal, range ? { range } : {}, undefined, progress);
    return response.bodyBytes;
  }

  /** The object's size. */
  async headObject(key: string, signal: AbortSignal): Promise<number> {
    const response = await this.send("HEAD", key, {}, signal);
    return Number(response.headers.get("content-length"));
  }

  async deleteObject(key: string, signal: AbortSignal): Promise<void> {
    await this.send("DELETE", key, {}, signal);
  }

  /** Opens `count` connections for the timed requests (ConnectionPool.warm), each with a HEAD of the bucket. */
  async warm(count: number, signal: AbortSignal): Promise<void> {
    const path = this.basePath || "/";
    const headers = this.signer.sign(
      { method: "HEAD", host: this.host, path, query: {}, headers: {} },
      await this.identity(),
    );
    await this.pool.warm(count, { method: "HEAD", target: path, headers }, signal);
  }

  destroy(): void {
    this.pool.destroy();
  }

  private async send(
    method: string,
    key: string,
    query: Record<string, string>,
    signal: AbortSignal,
    headers: Record<string, string> = {},
    body?: Buffer | Payload,
    progress: Progress = {},
  ): Promise<WireResponse> {
    const path = `${this.basePath}/${uriEncode(key, true)}`;
    const search = canonicalQuery(query);
    const signed = this.signer.sign({ method, host: this.host, path, query, headers }, await this.identity());
    const request: WireRequest = {
      method,
      target: search ? `${path}?${search}` : path,
      headers: signed,
      ...(body !== undefined && {
        contentLength: Buffer.isBuffer(body) ? body.length : body.size,
        body: Buffer.isBuffer(body) ? body : payloadBody(body),
      }),
      ...(body === undefined && method === "PUT" && { contentLength: 0 }),
    };
    const response = await this.pool.request(request, {
      signal,
      ...progress,
      keepBody: (status) => status >= 300,
    });
    if (response.status >= 300) throw s3Error(response, method === "HEAD");
    return response;
  }

  private async identity(): Promise<Identity> {
    const current = this.credentials;
    if (current && !(current.expiration && current.expiration.getTime() - Date.now() < REFRESH_MS))
      return current;
    this.pending ??= this.provider().finally(() => (this.pending = undefined));
    return (this.credentials = await this.pending);
  }
}

/** Where requests go and how keys become paths, as the SDK would address them. */
function address(connection: S3Connection): { origin: Origin; host: string; basePath: string } {
  const url = new URL(connection.endpoint ?? `https://s3.${connection.region}.amazonaws.com`);
  const pathStyle = connection.forcePathStyle || connection.bucket.includes(".");
  const hostname = pathStyle ? url.hostname : `${connection.bucket}.${url.hostname}`;
  const base = url.pathname.replace(/\/+$/, "");
  return {
    origin: originOf(url, "S3 endpoint", hostname),
    host: url.port ? `${hostname}:${url.port}` : hostname,
    basePath: pathStyle ? `${base}/${uriEncode(connection.bucket)}` : base,
  };
}

/** An S3 error response as the SDK would raise it: the S3 code as name, the status in $metadata. */
function s3Error(response: WireResponse, bodiless: boolean): Error {
  const xml = response.body?.toString("utf8") ?? "";
  const field = (name: string) => unescapeXml(new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? "");
  const code = field("Code") || (bodiless && response.status === 404 ? "NotFound" : "");
  const message =
    field("Message") ||
    (xml && !code ? "the server's reply was not S3 XML" : response.statusText || "request failed");
  return Object.assign(new Error(message), {
    name: code || `HTTP${response.status}`,
    $metadata: { httpStatusCode: response.status },
  });
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|amp|quot|apos);/g,
    (_, entity: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[entity]!,
  );
}
