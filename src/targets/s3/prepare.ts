/** Preparing an s3 target for a run: a launched MinIO (with its bucket), or an external endpoint. */
import { CreateBucketCommand, HeadBucketCommand } from "@aws-sdk/client-s3";
import { connectionFailure } from "../../platform/net-errors.js";
import { setupCheck, SetupTimeout } from "../../platform/timeouts.js";
import { redactUrls } from "../../platform/redact.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { wholeTarget } from "../case-place.js";
import type { PreparedTargetOf, PrepareOptions } from "../types.js";
import { makeS3Client, type S3Connection } from "./client.js";
import { runKeyPrefix } from "./keys.js";
import { launchMinio } from "./minio-server.js";

export const DEFAULT_BUCKET = "benchspec";

export async function prepareS3Target(target: TargetOf<"s3">, options: PrepareOptions) {
  if (target.launch) {
    const bucket = resolveEnvRefs(target.bucket ?? DEFAULT_BUCKET, options.env);
    // The objects of a launched server live in its data directory: removing that removes them.
    const server = await launchMinio({ created: (path) => options.created({ kind: "directory", path }) });
    const connection: S3Connection = {
      endpoint: server.endpoint,
      region: server.region,
      bucket,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
    };
    const client = makeS3Client(connection, 1);
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    } catch (error) {
      await server.stop();
      throw error;
    } finally {
      client.destroy();
    }
    return prepared(server.endpoint, connection, () => server.stop());
  }
  const connection = externalConnection(target, options.env);
  const client = makeS3Client(connection, 1);
  try {
    // benchspec never creates (nor empties) a bucket on someone else's store.
    await setupCheck(options.signal, (abortSignal) =>
      client.send(new HeadBucketCommand({ Bucket: connection.bucket }), { abortSignal }),
    );
  } catch (error) {
    throw new Error(unreachable(error, connection.bucket, connection.endpoint), { cause: error });
  } finally {
    client.destroy();
  }
  options.created({
    kind: "keys",
    bucket: connection.bucket,
    prefix: runKeyPrefix(options.spec, options.runId),
  });
  return prepared(connection.endpoint ?? "s3", connection, async () => {});
}

/** Why an external bucket cannot be used, and what to do about it. */
function unreachable(error: unknown, bucket: string, endpoint: string | undefined): string {
  const where = `bucket "${bucket}" at ${endpoint === undefined ? "AWS" : redactUrls(endpoint)}`;
  if (error instanceof SetupTimeout) return `${where}: ${error.message}`;
  const connection = connectionFailure(error);
  if (connection) return `${where}: ${connection}; start the S3 server or check "endpoint"`;
  const { name, message, $metadata } = error as Error & { $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  if (status === 403)
    return `${where}: access denied (HTTP 403); check the keys ("accessKey"/"secretKey", or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)`;
  if (status === 404)
    return `${where}: no such bucket (HTTP 404); create it (benchspec never creates a bucket on a store it did not launch) or set "bucket:" to an existing one`;
  if (name === "CredentialsProviderError")
    return `${where}: no credentials; set "accessKey"/"secretKey" to \${env:NAME} references, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY`;
  return `${where} is not usable: ${name}${status === undefined ? "" : ` (HTTP ${status})`}: ${message}`;
}

/** An external store's connection, its `${env:…}` references resolved. */
export function externalConnection(target: TargetOf<"s3">, env: NodeJS.ProcessEnv): S3Connection {
  const resolve = (value: string | undefined) =>
    value === undefined ? undefined : resolveEnvRefs(value, env);
  const accessKeyId = resolve(target.accessKey);
  const secretAccessKey = resolve(target.secretKey);
  return {
    endpoint: resolve(target.endpoint),
    region: resolve(target.region) ?? env.AWS_REGION ?? "us-east-1",
    bucket: resolve(target.bucket) ?? DEFAULT_BUCKET,
    forcePathStyle: target.pathStyle ?? true,
    ...(accessKeyId && secretAccessKey && { credentials: { accessKeyId, secretAccessKey } }),
  };
}

function prepared(
  location: string,
  connection: S3Connection,
  cleanup: () => Promise<void>,
): PreparedTargetOf<"s3"> {
  return { kind: "s3", location, connection, enterCase: wholeTarget(location), details: () => ({}), cleanup };
}
