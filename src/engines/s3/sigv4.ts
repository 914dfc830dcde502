/**
 * AWS Signature Version 4 for the S3 data plane, header-signed with an unsigned payload: the same bytes the
 * SDK's signer produces (a test checks it against @smithy/signature-v4), at a fraction of its cost per
 * request — the derived signing key is cached per day and region, and nothing is async.
 */
import { createHash, createHmac } from "node:crypto";

export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignableRequest {
  method: string;
  /** The Host header's value (host, plus :port when not the scheme's default). */
  host: string;
  /** The URI-encoded path, exactly as sent (S3 paths are not encoded twice nor normalized). */
  path: string;
  /** Query parameters, unencoded; order does not matter. */
  query?: Readonly<Record<string, string>>;
  /** Further headers to sign (e.g. range), lower-case names. */
  headers?: Readonly<Record<string, string>>;
}

export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

export class RequestSigner {
  private cachedKey: { scope: string; secret: string; key: Buffer } | undefined;

  constructor(
    private readonly region: string,
    private readonly service = "s3",
  ) {}

  /** The headers to send: the request's own, host, x-amz-date, x-amz-content-sha256, the token, authorization. */
  sign(request: SignableRequest, credentials: SigningCredentials, now = new Date()): Record<string, string> {
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
    const day = amzDate.slice(0, 8);
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const headers: Record<string, string> = {
      ...request.headers,
      host: request.host,
      "x-amz-content-sha256": UNSIGNED_PAYLOAD,
      "x-amz-date": amzDate,
      ...(credentials.sessionToken && { "x-amz-security-token": credentials.sessionToken }),
    };
    const names = Object.keys(headers).sort();
    const canonicalHeaders = names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, " ")}\n`);
    const signedHeaders = names.join(";");
    const canonicalRequest = [
      request.method,
      request.path,
      canonicalQuery(request.query),
      canonicalHeaders.join(""),
      signedHeaders,
      UNSIGNED_PAYLOAD,
    ].join("\n");
    const stringToSign = [
      "AWS4-HMAC-SHA256",
      amzDate,
      scope,
      createHash("sha256").update(canonicalRequest).digest("hex"),
    ].join("\n");
    const signature = createHmac("sha256", this.signingKey(scope, day, credentials.secretAccessKey))
      .update(stringToSign)
      .digest("hex");
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    return headers;
  }

  private signingKey(scope: string, day: string, secret: string): Buffer {
    if (this.cachedKey?.scope === scope && this.cachedKey.secret === secret) return this.cachedKey.key;
    let key = hmac(`AWS4${secret}`, day);
    for (const part of [this.region, this.service, "aws4_request"]) key = hmac(key, part);
    this.cachedKey = { scope, secret, key };
    return key;
  }
}

const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, optionally keeping '/'. */
export function uriEncode(text: string, keepSlash = false): string {
  const encoded = encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return keepSlash ? encoded.replace(/%2F/g, "/") : encoded;
}

export function canonicalQuery(query: Readonly<Record<string, string>> | undefined): string {
  if (!query) return "";
  return Object.entries(query)
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}
