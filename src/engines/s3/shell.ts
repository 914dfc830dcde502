/**
 * S3 in the shell script: the timed requests through curl (SigV4, `--aws-sigv4`, path-style URLs on the
 * target's endpoint), everything untimed through the AWS CLI (`aws s3api`, awscli v1 or v2).
 *
 * Every repetition works under its own key prefix `benchspec/<spec>/<run-id>/<case-id>/<r1|w1…>/`, with
 * fresh payload files (unique data per repetition).
 * All the repetition's requests go to ONE curl process (a config file, connections kept alive) that keeps
 * `concurrency` of them in flight as one shared queue (`--parallel`; a further curl per 300 in flight), and
 * curl times every transfer (`-w`): a CLI process per request would measure the CLI's start-up (hundreds of
 * ms of Python for `aws`: an upload study's script took 9 min 52 s where `benchspec run` took 28 s), and a
 * fixed list per worker left idle tails as workers finished apart (runtime.sh, bs_curl_run).
 * put = PutObject; get, delete, stat (HeadObject) and list (one ListObjectsV2 of the repetition's prefix
 * per object) upload the objects first, unmeasured. The curl is started and its connections opened before
 * the start barrier releases, so the timed window (release → last request's end) holds no process
 * start-up. A multipart upload is one op from its CreateMultipartUpload to its CompleteMultipartUpload, in
 * three curl processes, as each needs the answer of the one before (the upload id, then the parts' ETags;
 * the start-up of the second and third is in the op): `concurrency` workers each upload objects
 * i ≡ worker (mod concurrency), the parts `queue` at a time (`--parallel`).
 * Afterwards — also after a failure or Ctrl-C — exactly the
 * keys the repetition wrote are deleted and its incomplete multipart uploads aborted; a bucket is never
 * emptied wholesale, and a bucket is only deleted when this run created it (and only once it is empty).
 *
 * curl signs with the AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) variables, else the
 * aws CLI profile's static keys (`aws configure get`); the credentials go into curl's config file in the
 * script's private temp directory, never onto a command line.
 */
import { scriptLoad } from "../../emit/sdk-format.js";
import type { Case } from "../../plan/types.js";
import { shellDataMode } from "../../emit/data-mode.js";
import type { Engine } from "../types.js";
import { shellLibrary } from "../../emit/shell-assets.js";
import { curlSeries, DRAWN_SIZE_GAP, drawnSizeGaps } from "../load/curl-shell.js";
import { mixCounts } from "./sdk.js";

export const s3ShellTools = ["aws", "curl"] as const;

/** A mixed load's puts go through the shared queue; multipart uploads are chains of requests of their own. */
export const MIXED_MULTIPART_GAP =
  "op mixed with multipart uploads is not run: its case fails; run it with benchspec run (or its sdk call sequence)";

export const s3ShellGaps = (c: Case): string[] => [
  ...(c.op === "mixed" && c.params.multipart ? [MIXED_MULTIPART_GAP] : []),
  ...drawnSizeGaps(c),
];

export const s3ShellCase: Engine["shellCase"] = (c: Case, w) => {
  const p = c.params;
  const [gap] = s3ShellGaps(c);
  if (gap !== undefined || typeof p.size !== "number") {
    w.line(`bs_fail ${w.quote(gap ?? DRAWN_SIZE_GAP)}`);
    return;
  }
  // A mixed pass's kinds, counted as benchspec run counts them; bs_s3_mix interleaves them as it does.
  if (c.op === "mixed") w.assign("BS_S3_MIX", mixCounts(p.mix!, p.objects!).join(" "));
  const { concurrency, rounds, stopWhenGainBelow } = scriptLoad(c);
  const multipart = p.multipart || undefined;
  const duration = p.duration !== undefined ? Math.round(p.duration * 1e6) : 0;
  curlSeries(c, w);
  w.line(
    [
      "bs_s3",
      c.op,
      p.size,
      p.objects!,
      concurrency,
      multipart?.partSize ?? 0,
      multipart?.queue ?? 0,
      duration,
      shellDataMode(c),
      ...(rounds ? [rounds.join(" "), stopWhenGainBelow!] : []),
    ]
      .map((value) => w.quote(value))
      .join(" "),
  );
};

/** The bash functions every S3 case (and the S3 target setup) calls. */
export const s3ShellLibrary = shellLibrary(new URL("./s3.sh", import.meta.url));
