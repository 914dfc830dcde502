/**
 * An s3 target in the compiled script: the endpoint, bucket and region in the target arrays, credentials
 * from the environment. The script cannot launch MinIO: a `launch: minio` target needs the user's server.
 */
import { shQuote } from "../../emit/writer.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { assignWord, pureEnvExpansion } from "../../emit/shell-words.js";
import { placeFromEnvironment } from "../shell.js";
import type { TargetShell } from "../types.js";

/** The spec's credential keys and the AWS variables the CLI reads them from. */
const CREDENTIALS = [
  ["accessKey", "AWS_ACCESS_KEY_ID"],
  ["secretKey", "AWS_SECRET_ACCESS_KEY"],
] as const;

export const s3Shell: TargetShell<TargetOf<"s3">> = {
  place: () =>
    "the S3 endpoint URL (credentials: the AWS environment/profile chain unless the spec names variables)",
  functions: (t) => {
    const { target, fn, what } = t;
    const name = shQuote(t.name);
    return {
      setup: (w) => {
        placeFromEnvironment(w, t, "url", {
          specValue: target.endpoint,
          key: "endpoint",
          unplaced: `target ${t.name} is "launch: minio": start an S3 server (e.g. minio server DIR) and set ${t.variable}=http://HOST:PORT and the AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY it accepts`,
        });
        w.line(`BS_TURL[${name}]=$url`);
        if (target.bucket !== undefined)
          assignWord(w, `BS_TBUCKET[${name}]`, target.bucket, `${what} bucket`);
        else w.line(`BS_TBUCKET[${name}]=benchspec`);
        if (target.region !== undefined)
          assignWord(w, `BS_TREGION[${name}]`, target.region, `${what} region`);
        else w.line(`BS_TREGION[${name}]=\${AWS_REGION:-\${AWS_DEFAULT_REGION:-us-east-1}}`);
        w.line(`(${fn}_enter && bs_s3_bucket_setup ${name})`);
      },
      enter: (w) => {
        for (const [key, variable] of CREDENTIALS) {
          const value = target[key];
          if (value === undefined) continue;
          const expansion = pureEnvExpansion(value, `${what} ${key}`);
          if (expansion) {
            w.line(`export ${variable}=${expansion}`);
          } else {
            // A secret written into the spec is never copied into an artifact: the user supplies it at run time.
            w.comment(`${key} is written literally in the spec and is not copied here: set ${variable}`);
            w.line(
              `: "\${${variable}:?must be set: the spec's ${key} of ${what} is not copied into this script}"`,
            );
          }
        }
        w.line(`BS_S3_URL=\${BS_TURL[${name}]}`);
        w.line(`BS_S3_BUCKET=\${BS_TBUCKET[${name}]}`);
        w.line(`BS_S3_REGION=\${BS_TREGION[${name}]}`);
      },
      release: `(${fn}_enter && bs_s3_bucket_release ${name})`,
    };
  },
};
