/**
 * An S3 client tuned to measure the store, not the SDK (each choice measured by `npm run bench`):
 * checksums only when an operation requires them, no SHA-256 of payloads (UNSIGNED-PAYLOAD), no
 * `Expect: 100-continue` round trip, a keep-alive agent sized to the concurrency, no retries (a benchmark
 * records errors instead of hiding them in latency), and timeouts on every request so a dead server
 * cannot hang a run.
 */
import { NETWORK_TIMEOUTS } from "../../platform/timeouts.js";
import { S3Client } from "@aws-sdk/client-s3";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import http from "node:http";
import https from "node:https";
import { marked } from "../../platform/errors.js";

export interface S3Connection {
  endpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

// The SDK warns on Node 20 about releases after January 2027; the locked version supports it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export function makeS3Client(connection: S3Connection, sockets: number): S3Client {
  const agentOptions = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets };
  const client = new S3Client({
    ...(connection.endpoint && { endpoint: connection.endpoint }),
    region: connection.region,
    forcePathStyle: connection.forcePathStyle,
    ...(connection.credentials && { credentials: connection.credentials }),
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    expectContinueHeader: false,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      connectionTimeout: NETWORK_TIMEOUTS.connectTimeoutMs,
      // An idle socket (no bytes either way) for this long fails the request: no hang on a dead server.
      // (requestTimeout would only log a warning unless asked to throw, and would also cut off a long
      // but healthy request.)
      socketTimeout: NETWORK_TIMEOUTS.idleTimeoutMs,
    }),
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      // The signer hashes the body unless told not to; hashing costs more CPU than sending.
      if (request.headers) request.headers["x-amz-content-sha256"] = "UNSIGNED-PAYLOAD";
      return next(args);
    },
    { step: "build", name: "benchspecUnsignedPayload" },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        // The handler names its own timeouts (connect, idle socket) TimeoutError, and also a reset
        // connection; only a reset has a system error code. A timeout means the server stopped answering.
        const { name, code } = error as NodeJS.ErrnoException;
        throw name === "TimeoutError" && code === undefined
          ? marked("target-unresponsive", error as Error)
          : error;
      }
    },
    { step: "initialize", name: "benchspecUnresponsive" },
  );
  return client;
}
