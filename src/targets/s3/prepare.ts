/** Preparing an s3 target for a run: a launched MinIO (with its bucket), or an external endpoint. */
import { CreateBucketCommand, HeadBucketCommand } from "@aws-sdk/client-s3";
import type { Target } from "../../spec/schema.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import { makeS3Client, type S3Connection } from "./client.js";
import { launchMinio } from "./minio-server.js";

type S3Target = Extract<Target, { kind: "s3" }>;

export const DEFAULT_BUCKET = "benchspec";

export async function prepareS3Target(target: S3Target, env: NodeJS.ProcessEnv) {
  const resolve = (value: string | undefined) =>
    value === undefined ? undefined : resolveEnvRefs(value, env);
  const bucket = resolve(target.bucket) ?? DEFAULT_BUCKET;
  if (target.launch) {
    const server = await launchMinio();
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
    return { location: server.endpoint, s3: connection, cleanup: () => server.stop() };
  }
  const accessKeyId = resolve(target.accessKey);
  const secretAccessKey = resolve(target.secretKey);
  const connection: S3Connection = {
    endpoint: resolve(target.endpoint),
    region: resolve(target.region) ?? env.AWS_REGION ?? "us-east-1",
    bucket,
    forcePathStyle: target.pathStyle ?? true,
    ...(accessKeyId && secretAccessKey && { credentials: { accessKeyId, secretAccessKey } }),
  };
  const client = makeS3Client(connection, 1);
  try {
    // benchspec never creates (nor empties) a bucket on someone else's store.
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch (error) {
    throw new Error(
      `bucket "${bucket}" at ${connection.endpoint ?? "AWS"} is not reachable: ${(error as Error).name}`,
    );
  } finally {
    client.destroy();
  }
  return { location: connection.endpoint ?? "s3", s3: connection, cleanup: async () => {} };
}
