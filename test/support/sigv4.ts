/**
 * A minimal AWS Signature V4 signer for path-style S3 requests in tests, so a launched MinIO can be checked
 * with real authenticated calls without pulling in the AWS SDK. Query strings are not supported.
 */
import { createHash, createHmac } from "node:crypto";

export interface S3Credentials {
  accessKey: string;
  secretKey: string;
  region: string;
}

export function signedS3Fetch(
  credentials: S3Credentials,
  method: string,
  url: string,
  body: Uint8Array = new Uint8Array(),
): Promise<Response> {
  const target = new URL(url);
  const amzDate = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(body);
  const headers: Record<string, string> = {
    host: target.host,
    "x-amz-content-sha256": payloadHash,
    "x-amz-date": amzDate,
  };
  const signedHeaders = Object.keys(headers).sort().join(";");
  const canonicalRequest = [
    method,
    target.pathname,
    "",
    ...Object.keys(headers)
      .sort()
      .map((name) => `${name}:${headers[name]}`),
    "",
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${credentials.region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  let key: Buffer = hmac(`AWS4${credentials.secretKey}`, day);
  for (const part of [credentials.region, "s3", "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(stringToSign).digest("hex");
  return fetch(url, {
    method,
    body: method === "GET" || method === "HEAD" ? undefined : body,
    // Host is signed but not sent: fetch sets it itself, to the same value.
    headers: {
      "x-amz-content-sha256": payloadHash,
      "x-amz-date": amzDate,
      authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKey}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    },
  });
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}
