/**
 * (One file of ~600 lines on purpose: the whole language's schema, read top to bottom as the reference is.)
 * The benchspec language, v1: the single source of truth for the spec's types, its validation and
 * schema/benchspec.schema.json. Objects are strict (unknown keys are errors), values with units are
 * normalized here (sizes → bytes, rates → bytes/s, durations → seconds, percentages → 0–100).
 * Cross-field rules live in rules.ts; expansion into cases in expand.ts.
 */
import { z } from "zod";
import type { DiagnosticCode } from "../diagnostics/codes.js";
import { OPS } from "./words.js";
import { LATENCY_METRICS, METRICS } from "../rows/metric-names.js";
import { envRefs, hasControlChars, httpUrlProblem, NAME_PATTERN, NAME_RULE, VAR_PATTERN } from "./strings.js";
import { isSizeDistribution, type SizeDistribution } from "../rows/sizes.js";
import { parseUnit, UNIT_EXAMPLES, UNIT_PATTERNS, writeUnit, type UnitKind } from "./units.js";

/** Custom issues carry their diagnostic code in `params.code`. */
const issue = (code: DiagnosticCode, message: string) => ({
  code: "custom" as const,
  message,
  params: { code },
});

/**
 * A value with a unit, written "4KiB", normalized to a number (bytes, seconds…). A codec: a normalized value
 * encodes back to text that parses to it, which is how a plan's cases travel to workers (hosts/protocol.ts).
 */
const unit = (kind: UnitKind) =>
  z
    .codec(
      z.union([z.number(), z.string().meta({ pattern: UNIT_PATTERNS[kind].source })], {
        error: `expected ${UNIT_EXAMPLES[kind]}`,
      }),
      z.number(),
      {
        decode: (input, ctx) => {
          const parsed = parseUnit(kind, input);
          if (parsed.ok) return parsed.value;
          ctx.issues.push({
            ...issue(parsed.range ? "out-of-range" : "invalid-unit", parsed.message),
            input,
          });
          return z.NEVER;
        },
        encode: (value) => writeUnit(kind, value),
      },
    )
    .meta({ description: UNIT_EXAMPLES[kind] });

const size = unit("size");
const positiveSize = size.refine((bytes) => bytes > 0, {
  message: "must be larger than 0B",
  params: { code: "out-of-range" },
});
const rate = unit("rate");
const duration = unit("duration");
const positiveDuration = duration.refine((s) => s > 0, {
  message: "must be longer than 0s",
  params: { code: "out-of-range" },
});
const percent = unit("percent");
/** Node's timers wait at most 2^31−1 ms (about 596 h); a longer wait would end at once. */
const MAX_WAIT_S = (2 ** 31 - 1) / 1000;
const waitLimit = {
  message: `at most ${Math.floor(MAX_WAIT_S / 3600)}h (${Math.floor(MAX_WAIT_S)}s): a longer wait cannot be timed`,
  params: { code: "out-of-range" },
};
/** A wait benchspec times itself (idle, sampling, connecting): within the timers' limit. */
const waitDuration = duration.refine((s) => s <= MAX_WAIT_S, waitLimit);
const positiveWaitDuration = positiveDuration.refine((s) => s <= MAX_WAIT_S, waitLimit);

const name = (what: string) =>
  z
    .string()
    .refine((text) => NAME_PATTERN.test(text), {
      message: `${what} must be ${NAME_RULE}`,
      params: { code: "invalid-name" },
    })
    .meta({ pattern: NAME_PATTERN.source });

/**
 * An engine's name. Which names exist is the engine table's (engines/index.ts), not the language's: the
 * expansion checks a name against the table it is given, and the JSON Schema lists the table's names.
 */
export const EngineNameSchema = z.string();

const count = (min: number, max: number, what: string) =>
  z.number().int(`${what} must be a whole number`).min(min).max(max);

/** Text shown to people (descriptions, labels): anything printable, escaped wherever it is emitted. */
const text = z
  .string()
  .max(4096)
  .refine((value) => !value.includes("\u0000"), { message: "must not contain NUL" });

/** A single-line string that may hold `${env:NAME}` references, resolved at run time, never inlined. */
const envString = z
  .string()
  .min(1)
  .max(4096)
  .superRefine((value, ctx) => {
    if (hasControlChars(value)) {
      ctx.addIssue({
        ...issue("invalid-value", "must be a single line without control characters"),
        input: value,
      });
      return;
    }
    const refs = envRefs(value);
    if ("error" in refs) ctx.addIssue({ ...issue("invalid-env-ref", refs.error), input: value });
  });

/** A server address: an http:// or https:// URL, possibly built from `${env:NAME}` references. */
const httpUrl = (example: string) =>
  envString.superRefine((value, ctx) => {
    const problem = httpUrlProblem(value, example);
    if (problem) ctx.addIssue({ ...issue("invalid-value", problem), input: value });
  });

/* ---------- targets ---------- */

const keep = z.boolean().optional().describe("keep the data the run created instead of removing it");

/** A var name: what `vars` keys and a target's `vars` keys must look like. */
const varName = z.string().refine((key) => VAR_PATTERN.test(key), {
  message: 'a variable name must be a letter or "_" followed by letters, digits or "_"',
  params: { code: "invalid-name" },
});

/** A number, or an expression over vars with units: "min(1000 + 6 * capacityGiB, 3000)", "80MB/s". */
const exprSchema = z.union([z.number(), z.string().min(1).max(1000)], {
  error: 'expected a number or an expression such as "min(1000 + 6 * capacityGiB, 3000)"',
});

const targetVars = z
  .record(varName, exprSchema)
  .optional()
  .describe(
    "values of the spec's vars for this target's cases (e.g. its capacityGiB): expect and limit formulas use them",
  );

const fsTarget = z.strictObject({
  kind: z.literal("fs"),
  description: text.optional(),
  vars: targetVars,
  path: envString.optional().describe("directory to benchmark in (default: a fresh temp dir)"),
  keep,
});

/** A blkid signature type or id: never a shell or INI metacharacter. */
const BLKID_WORD = /^[A-Za-z0-9_.-]{1,64}$/;
const blkidWord = (what: string) =>
  z
    .string()
    .refine((value) => BLKID_WORD.test(value), {
      message: `${what} must be 1 to 64 letters, digits, "_", "." or "-"`,
      params: { code: "invalid-value" },
    })
    .meta({ pattern: BLKID_WORD.source });

const blockTarget = z.strictObject({
  kind: z.literal("block"),
  description: text.optional(),
  vars: targetVars,
  device: envString.describe("block device, e.g. /dev/nvme1n1 or /dev/disk/by-id/…"),
  destructive: z.boolean().optional().describe("required for any workload that writes to the device"),
  overwrite: z
    .strictObject({
      signature: blkidWord("signature").describe(
        "what blkid -p finds on the device: its partition table (gpt, dos…) or its TYPE (ext4, xfs, LVM2_member, linux_raid_member, swap…)",
      ),
      uuid: blkidWord("uuid")
        .optional()
        .describe("its PTUUID or UUID: only the device holding that one is overwritten"),
    })
    .optional()
    .describe(
      "with destructive: true, names what the device holds and may be destroyed; without it, a device holding anything is refused",
    ),
});

/** S3's bucket naming rules: 3–63 of a-z 0-9 . -, a letter or digit at each end, no "..", not an IP address. */
const BUCKET_NAME = /^(?!\d+\.\d+\.\d+\.\d+$)(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const BUCKET_RULE = (value: string) =>
  `${JSON.stringify(value)} is not a bucket name; expected 3 to 63 lowercase letters, digits, "." and "-", starting and ending with a letter or digit`;

const s3Target = z.strictObject({
  kind: z.literal("s3"),
  description: text.optional(),
  vars: targetVars,
  endpoint: httpUrl("https://s3.example.com")
    .optional()
    .describe("S3 endpoint URL, e.g. https://s3.example.com or ${env:S3_ENDPOINT}"),
  launch: z.literal("minio").optional().describe("start a throwaway local MinIO for the run"),
  bucket: envString
    .superRefine((value, ctx) => {
      // A value from ${env:…} is checked when it is resolved, at run time.
      if (!value.includes("${") && !BUCKET_NAME.test(value))
        ctx.addIssue({ ...issue("invalid-value", BUCKET_RULE(value)), input: value });
    })
    .optional()
    .describe("bucket to use (default: benchspec)"),
  region: envString.optional(),
  accessKey: envString.optional().describe("use ${env:NAME}; default: the AWS credential chain"),
  secretKey: envString.optional().describe("use ${env:NAME}; default: the AWS credential chain"),
  pathStyle: z.boolean().optional(),
  keep,
});

const ipfsTarget = z.strictObject({
  kind: z.literal("ipfs"),
  description: text.optional(),
  vars: targetVars,
  api: httpUrl("http://127.0.0.1:5001").optional().describe("Kubo RPC API URL, e.g. http://127.0.0.1:5001"),
  launch: z.literal("kubo").optional().describe("start a throwaway offline Kubo node"),
  fresh: z
    .enum(["once", "per-case", "per-repetition"])
    .optional()
    .describe("with launch: how often to start from an empty repo"),
  keep,
});

export const TargetSchema = z.discriminatedUnion("kind", [fsTarget, blockTarget, s3Target, ipfsTarget]);
export type Target = z.output<typeof TargetSchema>;
export type TargetKind = Target["kind"];
export const TARGET_KINDS = ["fs", "block", "s3", "ipfs"] as const satisfies readonly TargetKind[];

/* ---------- client hosts ---------- */

/**
 * An OpenSSH destination ([user@]host, or ssh://[user@]host[:port]). Never starting with "-": ssh would read
 * it as an option.
 */
const SSH_DESTINATION =
  /^(ssh:\/\/)?([A-Za-z0-9._%+-]{1,64}@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,252}))(:\d{1,5})?$/;
/** The port at the end of a destination or server address, when it names one. */
const portOf = (value: string): number | undefined => {
  const port = /(?:^|[^:]):(\d{1,5})$/.exec(value)?.[1];
  return port === undefined ? undefined : Number(port);
};
/** A port outside 1–65535 is refused where it is written, not blamed on every host when Node rejects it. */
const portInRange = {
  check: (value: string) => {
    const port = portOf(value);
    return port === undefined || (port >= 1 && port <= 65_535);
  },
  error: (issue: { input: unknown }) =>
    `port ${portOf(String(issue.input))} is out of range: a port is 1–65535`,
};

const sshDestination = z
  .string()
  .refine((value) => SSH_DESTINATION.test(value), {
    message:
      "expected an ssh destination such as node1, alice@node1.example.com or ssh://alice@10.0.0.5:2222",
    params: { code: "invalid-value" },
  })
  .refine(portInRange.check, { error: portInRange.error, params: { code: "invalid-value" } })
  .meta({ pattern: SSH_DESTINATION.source });

/** How benchspec is started on a host: a command line its shell runs (`benchspec`, `npx benchspec`, a path). */
const remoteCommand = z
  .string()
  .min(1)
  .max(1024)
  .refine((value) => !hasControlChars(value), {
    message: "must be a single line without control characters",
    params: { code: "invalid-value" },
  })
  .describe("how to start benchspec on each host (default: benchspec); it must be the same version as here");

const sshGroup = z.strictObject({
  transport: z.literal("ssh").describe("reach each host with the user's own OpenSSH client"),
  description: text.optional(),
  hosts: z
    .array(sshDestination)
    .min(1)
    .max(1024)
    .describe("ssh destinations, resolved through your ssh config"),
  command: remoteCommand.optional(),
  sshConfig: envString.optional().describe("an ssh_config file to use instead of ~/.ssh/config (ssh -F)"),
  connectTimeout: positiveWaitDuration.optional().describe("how long ssh may take to connect (default: 10s)"),
});

const slurmGroup = z.strictObject({
  transport: z
    .literal("slurm")
    .describe("place one worker per node with srun, inside or outside an allocation"),
  description: text.optional(),
  nodes: count(1, 100_000, "nodes").describe("how many nodes run the case (srun -N, one task per node)"),
  command: remoteCommand.optional(),
  srun: z
    .array(z.string().min(1).max(1024))
    .max(64)
    .optional()
    .describe("further srun arguments, e.g. [--partition=debug, --time=10]"),
});

/** A fio server: host name or address (IPv6 in brackets), with its port when not fio's 8765. */
const FIO_SERVER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,252}))(:\d{1,5})?$/;
const fioServer = z
  .string()
  .refine((value) => FIO_SERVER.test(value), {
    message: "expected a fio server such as node1, node1:8766, 10.0.0.5 or [fd00::5]:8765",
    params: { code: "invalid-value" },
  })
  .refine(portInRange.check, { error: portInRange.error, params: { code: "invalid-value" } })
  .meta({ pattern: FIO_SERVER.source });

const fioGroup = z.strictObject({
  transport: z
    .literal("fio")
    .describe(
      "fio's own client/server: `fio --client` here, `fio --server` on each host (fio workloads only)",
    ),
  description: text.optional(),
  hosts: z
    .array(fioServer)
    .min(1)
    .max(1024)
    .describe("the fio servers, as host or host:port (default port 8765), each started with `fio --server`"),
  connectTimeout: positiveWaitDuration
    .optional()
    .describe("how long a server may take to accept a connection (default: 10s)"),
});

/* Kubernetes names and values, as its API validates them: refused where they are written, not by the API server. */
const k8s = (pattern: RegExp, max: number, what: string) =>
  z
    .string()
    .max(max)
    .refine((value) => pattern.test(value), { message: what, params: { code: "invalid-value" } })
    .meta({ pattern: pattern.source });
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const IMAGE = /^[A-Za-z0-9][A-Za-z0-9._\-/:@+]*$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$/;
const quantity = z
  .union([
    z.number().nonnegative(),
    k8s(QUANTITY, 64, "expected a Kubernetes quantity such as 2, 500m or 4Gi"),
  ])
  .transform(String);
const resourceList = z
  .record(k8s(LABEL_KEY, 253, "expected a resource name such as cpu, memory or ephemeral-storage"), quantity)
  .describe("resource name → Kubernetes quantity, e.g. { cpu: 2, memory: 4Gi }");
const podPath = z
  .string()
  .max(4096)
  .refine((value) => value.startsWith("/") && !hasControlChars(value), {
    message: "must be an absolute path without control characters",
    params: { code: "invalid-value" },
  });

const podVolume = z
  .strictObject({
    path: podPath.optional().describe("where the volume is mounted in each pod (a file system)"),
    device: podPath
      .optional()
      .describe("the device path the volume appears at in each pod (a raw block volume, volumeMode Block)"),
    claim: k8s(DNS_SUBDOMAIN, 253, "expected a PersistentVolumeClaim's name")
      .optional()
      .describe("an existing PersistentVolumeClaim every pod mounts (one shared volume: ReadWriteMany)"),
    storageClass: k8s(DNS_SUBDOMAIN, 253, "expected a StorageClass's name")
      .optional()
      .describe(
        "a new volume of this StorageClass for each pod, deleted with it (a generic ephemeral volume)",
      ),
    size: positiveSize.optional().describe("the size of each new volume (with storageClass)"),
    hostPath: podPath.optional().describe("a directory of the node each pod runs on (hostPath)"),
    readOnly: z.boolean().optional(),
  })
  .superRefine((volume, ctx) => {
    const fail = (message: string) => ctx.addIssue(issue("invalid-value", message));
    if ((volume.path === undefined) === (volume.device === undefined))
      fail("a volume has either a path (mounted) or a device (a raw block volume)");
    const sources = (["claim", "storageClass", "hostPath"] as const).filter(
      (key) => volume[key] !== undefined,
    );
    if (sources.length !== 1)
      fail("a volume comes from one of claim (a PVC), storageClass (a new volume per pod) or hostPath");
    if ((volume.storageClass === undefined) !== (volume.size === undefined))
      fail("storageClass and size go together: each pod's new volume needs both");
    if (volume.device !== undefined && volume.hostPath !== undefined)
      fail("a device comes from a claim or a storageClass (a block PVC), not from a hostPath");
  });

const kubernetesGroup = z.strictObject({
  transport: z
    .literal("kubernetes")
    .describe(
      "pods of an Indexed Job run the workers, reached through the API server with kubectl attach (the user's kubeconfig)",
    ),
  description: text.optional(),
  pods: count(1, 10_000, "pods").describe("how many pods run the case, one worker each"),
  image: k8s(IMAGE, 512, "expected an image reference such as registry.example/benchspec:0.1.0").describe(
    "the benchspec image the pods run (the repository's Containerfile); the same benchspec version as here",
  ),
  imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).optional(),
  command: remoteCommand.optional(),
  kubeconfig: envString.optional().describe("a kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"),
  context: z
    .string()
    .min(1)
    .max(253)
    .optional()
    .describe("the kubeconfig context (default: its current one)"),
  namespace: k8s(DNS_LABEL, 63, "expected a namespace's name (lower-case letters, digits and -)")
    .optional()
    .describe("where the Job runs (default: the context's namespace)"),
  spread: z
    .enum(["node", "zone", "any"])
    .optional()
    .describe(
      "node: one pod per node (default; pods that find no node of their own stay unscheduled); zone: evenly over zones; any: where the scheduler puts them",
    ),
  nodeSelector: z
    .record(
      k8s(LABEL_KEY, 317, "expected a label key such as kubernetes.io/arch"),
      k8s(LABEL_VALUE, 63, "expected a label value"),
    )
    .optional()
    .describe("node labels a pod's node must have"),
  tolerations: z
    .array(
      z.strictObject({
        key: k8s(LABEL_KEY, 317, "expected a taint key").optional(),
        operator: z.enum(["Exists", "Equal"]).optional(),
        value: k8s(LABEL_VALUE, 63, "expected a taint value").optional(),
        effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
      }),
    )
    .max(32)
    .optional()
    .describe("taints the pods tolerate (nodes kept for benchmarks)"),
  resources: z
    .strictObject({ requests: resourceList.optional(), limits: resourceList.optional() })
    .optional()
    .describe("each worker container's requests and limits"),
  serviceAccount: k8s(DNS_SUBDOMAIN, 253, "expected a ServiceAccount's name")
    .optional()
    .describe("the pods' service account (default: none mounted)"),
  volumes: z
    .array(podVolume)
    .max(16)
    .optional()
    .describe("the storage under test in each pod: a PVC, a new volume per pod, or a node's directory"),
  startTimeout: positiveWaitDuration
    .optional()
    .describe("how long the pods may take to be scheduled, get their image and start (default: 120s)"),
});

export const HostGroupSchema = z.discriminatedUnion("transport", [
  sshGroup,
  slurmGroup,
  fioGroup,
  kubernetesGroup,
]);
export type HostGroup = z.output<typeof HostGroupSchema>;
export type Transport = HostGroup["transport"];

/* ---------- workload parameters ---------- */

const dataSchema = z.union([
  z.enum(["random", "zero"]),
  z.strictObject({ compressible: percent.describe("share of each block that compresses") }),
]);

const mixSchema = z
  .strictObject({
    get: percent.optional(),
    put: percent.optional(),
    stat: percent.optional(),
    delete: percent.optional(),
  })
  .refine((mix) => Object.values(mix).reduce((sum, share) => sum + (share ?? 0), 0) === 100, {
    message: "the shares of a mix add up to 100%, e.g. { get: 45%, stat: 30%, put: 15%, delete: 10% }",
  })
  .describe(
    "s3 op mixed: each operation's share of the operations (default: get 45%, stat 30%, put 15%, delete 10%, as warp's mixed)",
  );

const multipartSchema = z.union([
  z.literal(false),
  z.strictObject({
    partSize: size
      .refine((bytes) => bytes >= 5 * 2 ** 20 && bytes <= 5 * 2 ** 30, {
        // S3 answers EntityTooSmall only after the parts were sent: say it before the run.
        message: "must be between 5MiB and 5GiB (S3's limits for every part but the last)",
        params: { code: "out-of-range" },
      })
      .describe("size of each part (S3 allows 5MiB…5GiB)"),
    queue: count(1, 1024, "queue").describe("parts in flight per object"),
  }),
]);

/**
 * A size drawn per operation (rows/sizes.ts): `{ uniform: [4KiB, 1MiB] }`, `{ lognormal: { median: 1MiB,
 * spread: 4 } }` or weighted buckets, `{ 4KiB: 70%, 1MiB: 25%, 64MiB: 5% }` (or `{ buckets: {…} }`), each
 * with an optional `seed`. One object with a catch-all for the buckets' sizes, not a union, so a mistyped
 * word is named as such rather than as a mismatch of every branch.
 */
const sizeDistribution = z
  .codec(
    z
      .object({
        uniform: z
          .tuple([positiveSize, positiveSize])
          .optional()
          .describe("[min, max]: every whole size from min to max equally likely"),
        lognormal: z
          .strictObject({
            median: positiveSize,
            spread: z
              .number()
              .gt(1, "spread must be above 1 (it multiplies the median by one standard deviation)")
              .max(1000)
              .describe(
                "geometric standard deviation: 68% of the sizes lie within median ÷ spread … median × spread",
              ),
            min: positiveSize.optional().describe("smallest size drawn (default 1B)"),
            max: positiveSize.optional().describe("largest size drawn (default median × spread³)"),
          })
          .optional()
          .describe("sizes whose logarithm is normal, truncated to [min, max]"),
        buckets: z
          .record(z.string(), percent)
          .optional()
          .describe("weighted buckets: { 4KiB: 70%, 1MiB: 30% }"),
        seed: count(0, 2 ** 32 - 1, "seed")
          .optional()
          .describe("another seed draws other sizes (default 0)"),
      })
      // Checked in decode, so that a mistyped word is named as not a size rather than as not a share.
      .catchall(z.unknown().describe("a bucket's share (70%), keyed by its size (4KiB)")),
    z.custom<SizeDistribution>(isSizeDistribution),
    {
      decode: (input, ctx) => {
        const { uniform, lognormal, buckets, seed, ...shorthand } = input;
        const fail = (message: string, path: PropertyKey[] = []) => {
          ctx.issues.push({ ...issue("invalid-value", message), input, path });
          return z.NEVER;
        };
        const given = [uniform && "uniform", lognormal && "lognormal", buckets && "buckets"].filter(Boolean);
        const sizes = Object.keys(shorthand);
        if (sizes.length > 0) given.push("bucket sizes");
        if (given.length !== 1)
          return fail(
            given.length === 0
              ? "expected a distribution: { uniform: [min, max] }, { lognormal: { median, spread } } or buckets { 4KiB: 70%, 1MiB: 30% }"
              : `one distribution per size, not ${given.join(" and ")}`,
          );
        const seeded = seed !== undefined ? { seed } : {};
        if (uniform) {
          const [min, max] = uniform;
          if (min > max) return fail("uniform: [min, max] with min at most max", ["uniform"]);
          return { uniform: { min, max }, ...seeded };
        }
        if (lognormal) {
          const { median, spread, min = 1, max = Math.round(median * spread ** 3) } = lognormal;
          if (!(min <= median && median <= max)) return fail("lognormal: min ≤ median ≤ max", ["lognormal"]);
          return { lognormal: { median, spread, min, max }, ...seeded };
        }
        const written = buckets ?? shorthand;
        const prefix = buckets ? ["buckets"] : [];
        const parsed: { size: number; percent: number }[] = [];
        for (const [key, percent] of Object.entries(written)) {
          const size = parseUnit("size", key);
          if (!size.ok || size.value <= 0)
            return fail(
              `"${key}" is not a size: a distribution has uniform, lognormal, buckets or seed, or buckets keyed by their size (${UNIT_EXAMPLES.size})`,
              [...prefix, key],
            );
          if (parsed.some((b) => b.size === size.value))
            return fail(`${key} is a bucket twice (sizes are compared in bytes)`, [...prefix, key]);
          const share =
            typeof percent === "number" || typeof percent === "string"
              ? parseUnit("percent", percent)
              : undefined;
          if (!share?.ok)
            return fail(share?.message ?? `a bucket's share is a percentage, e.g. 70%`, [...prefix, key]);
          parsed.push({ size: size.value, percent: share.value });
        }
        const total = parsed.reduce((sum, b) => sum + b.percent, 0);
        if (Math.abs(total - 100) > 1e-9)
          return fail(`the buckets' shares add up to ${total}%, not 100%`, prefix);
        return { buckets: parsed.sort((a, b) => a.size - b.size), ...seeded };
      },
      // The catch-all types every key as a bucket's share; the written forms here have none.
      encode: (value) => {
        const seeded = value.seed !== undefined ? { seed: value.seed } : {};
        if ("uniform" in value)
          return { uniform: [value.uniform.min, value.uniform.max], ...seeded } as never;
        if ("lognormal" in value) return { lognormal: value.lognormal, ...seeded } as never;
        const buckets = value.buckets.map((b) => [String(writeUnit("size", b.size)), b.percent]);
        return { buckets: Object.fromEntries(buckets) as Record<string, number>, ...seeded } as never;
      },
    },
  )
  .meta({
    description:
      "a size drawn per operation, the same for a seed: { uniform: [4KiB, 1MiB] }, { lognormal: { median: 1MiB, spread: 4, min: 4KiB, max: 64MiB } } or weighted buckets { 4KiB: 70%, 1MiB: 25%, 64MiB: 5% }",
  });
const sizeOrDistribution = z.union([positiveSize, sizeDistribution]);

/** PTS defaults: `precondition: {}` is two sequential passes over the whole target (2× its capacity), 128KiB each write. */
const preconditionSchema = z.strictObject({
  write: z.enum(["seq", "random"]).default("seq").describe("sequential or random fill of the whole target"),
  passes: count(1, 10, "passes").default(2).describe("full writes of the target"),
  bs: positiveSize.optional().describe("write size (default 128KiB)"),
});

const steadySchema = z.strictObject({
  metric: z.enum(["iops", "throughput"]),
  window: positiveDuration.describe("fio ss_dur: the window the criterion must hold over"),
  slope: percent.optional().describe("stop when the slope over the window is below this"),
  range: percent.optional().describe("stop when all samples are within this of the mean"),
  ramp: duration.optional().describe("fio ss_ramp: time before the criterion is checked"),
});

/** The most operations per second a client is asked to start on schedule (a timer cannot keep finer). */
const MAX_OPS_RATE = 1e6;
const OPS_RATE_PATTERN = /^(\d+(?:\.\d+)?)\s*(?:ops)?\/s$/;

/**
 * An open-loop load's target rate: operations per second (`200`, `"200/s"`) or bytes per second
 * (`"100MiB/s"`: divided by the object size). A codec, like the units, so a case travels to workers as
 * written.
 */
const loadRateSchema = z
  .codec(
    z.union(
      [z.number(), z.string().meta({ pattern: `${OPS_RATE_PATTERN.source}|${UNIT_PATTERNS.rate.source}` })],
      {
        error: 'expected operations per second (200 or "200/s") or bytes per second ("100MiB/s")',
      },
    ),
    z.union([z.strictObject({ opsPerSecond: z.number() }), z.strictObject({ bytesPerSecond: z.number() })]),
    {
      decode: (input, ctx) => {
        const ops = typeof input === "number" ? input : Number(OPS_RATE_PATTERN.exec(input)?.[1] ?? NaN);
        if (!Number.isNaN(ops)) {
          if (ops > 0 && ops <= MAX_OPS_RATE) return { opsPerSecond: ops };
          ctx.issues.push({
            ...issue(
              "out-of-range",
              `rate must be above 0 and at most ${MAX_OPS_RATE} operations per second`,
            ),
            input,
          });
          return z.NEVER;
        }
        const bytes = parseUnit("rate", input);
        if (bytes.ok && bytes.value > 0) return { bytesPerSecond: bytes.value };
        ctx.issues.push({
          ...issue(
            bytes.ok || bytes.range ? "out-of-range" : "invalid-unit",
            bytes.ok ? "rate must be above 0B/s" : bytes.message,
          ),
          input,
        });
        return z.NEVER;
      },
      encode: (value) =>
        "opsPerSecond" in value ? value.opsPerSecond : writeUnit("rate", value.bytesPerSecond),
    },
  )
  .meta({
    description:
      'open loop: operations started on a schedule at this rate whatever the store answers — operations per second (200 or "200/s") or bytes per second ("100MiB/s"); latency is then the response time from each scheduled start',
  });

const autotuneSchema = z.strictObject({
  param: z.enum(["concurrency", "parallel", "iodepth", "jobs", "rate"]),
  start: count(1, 1_000_000, "start"),
  factor: z.number().gt(1, "factor must be greater than 1").max(16),
  max: count(1, 1_000_000, "max"),
  stopWhenGainBelow: percent
    .optional()
    .describe("the gain rule: stop at the first step that improves the result by less than this"),
  bound: z
    .strictObject({
      metric: z.enum(LATENCY_METRICS),
      atMost: positiveDuration,
    })
    .optional()
    .describe(
      "the bound rule: raise the load until this latency figure exceeds atMost, then bisect; the highest load that met it is chosen",
    ),
  resolution: percent
    .optional()
    .describe(
      "with bound: bisect until the load that met it and the one that missed are this close (default 10%)",
    ),
});

/** Every workload parameter: usable in a workload, in `defaults`, as a matrix dimension and in include/exclude. */
export const paramShape = {
  target: z
    .union([
      name("a target name"),
      z
        .strictObject({
          together: z
            .array(name("a target name"))
            .min(2, "together needs at least two targets")
            .max(64)
            .describe("targets one case runs on at the same instant, each with its own jobs"),
        })
        .describe("one case over several targets at once (a JBOD): one aggregate row, each target's share"),
    ])
    .describe("name of a target in `targets`, or { together: [names] }"),
  hosts: name("a host group name").describe(
    "name of a group in `hosts`: every host of it runs each case at the same instant (default: this machine only)",
  ),
  engine: EngineNameSchema,
  op: z.enum(OPS),
  size: sizeOrDistribution.describe(
    "fio: file size per job; s3/ipfs: object size, one value or drawn per object from a distribution",
  ),
  bs: sizeOrDistribution.describe(
    "block size; fio: one value or drawn per I/O from a distribution (bssplit, bsrange)",
  ),
  count: count(1, 1e9, "count").describe("dd: blocks per process"),
  iodepth: count(1, 65536, "iodepth"),
  jobs: count(1, 4096, "jobs").describe("fio numjobs"),
  parallel: count(1, 4096, "parallel").describe("dd: processes started together"),
  concurrency: count(1, 65536, "concurrency").describe(
    "operations in flight (with rate: the most in flight; an operation whose turn comes with none free starts late, and its wait counts in its latency)",
  ),
  rate: loadRateSchema,
  arrivals: z
    .enum(["constant", "poisson"])
    .describe(
      "with rate: scheduled starts evenly spaced (constant) or a Poisson process of that mean rate, the same for a spec and case",
    ),
  threads: z
    .union([count(1, 64, "threads"), z.literal("auto")])
    .describe(
      "s3: client threads sharing the operations in flight (auto: one per 8 in flight, at most half the cores; one on 2 cores or fewer)",
    ),
  objects: count(1, 1e9, "objects").describe("objects per repetition"),
  read: percent.describe("read share of a mixed workload"),
  mix: mixSchema,
  duration: positiveDuration.describe("run time per repetition (time-based)"),
  ramp: duration.describe("warm-up time excluded from each repetition (fio ramp_time)"),
  warmup: count(0, 100, "warmup").describe("uncounted repetitions before the measured ones"),
  repeat: count(1, 1000, "repeat").describe("measured repetitions"),
  direct: z.boolean().describe("O_DIRECT: bypass the page cache"),
  data: dataSchema.describe("payload: random (unique per repetition), zero, or { compressible: N% }"),
  multipart: multipartSchema,
  sample: positiveWaitDuration.describe("interval of the throughput/IOPS time series"),
  precondition: preconditionSchema.describe(
    "fill the target once per workload and target, before the workload's first case on it",
  ),
  purge: z
    .boolean()
    .describe(
      "empty the target once per workload and target, before preconditioning (block: blkdiscard, else zeros written; fs: the case's files removed)",
    ),
  idle: waitDuration.describe("the target left idle this long before each repetition, warm-ups too"),
  steady: steadySchema,
  autotune: autotuneSchema,
  ioengine: z.enum(["libaio", "io_uring", "psync", "sync", "pvsync2", "posixaio", "mmap"]),
  chunker: z
    .string()
    .regex(
      /^(size-\d{1,9}|rabin(-\d{1,9}){0,3}|buzhash)$/,
      "chunker must be size-N, rabin[-min-avg-max] or buzhash",
    ),
  cidVersion: z.literal([0, 1]),
  rawLeaves: z.boolean(),
  pin: z.boolean(),
};
export type ParamName = keyof typeof paramShape;
export const PARAM_NAMES = Object.keys(paramShape) as ParamName[];
export type Params = { [K in ParamName]: z.output<(typeof paramShape)[K]> };
export type ParamValue = Params[ParamName];

/** Parameters whose values are scalars: in a workload, a list of them is a matrix dimension. */
export const SWEEPABLE_PARAMS = [
  "target",
  "hosts",
  "engine",
  "op",
  "size",
  "bs",
  "count",
  "iodepth",
  "jobs",
  "parallel",
  "concurrency",
  "rate",
  "arrivals",
  "threads",
  "objects",
  "read",
  "duration",
  "idle",
  "direct",
  "data",
  "ioengine",
  "chunker",
  "cidVersion",
  "rawLeaves",
] as const satisfies readonly ParamName[];
type SweepableParam = (typeof SWEEPABLE_PARAMS)[number];

type Shape = typeof paramShape;
const pick = <K extends ParamName>(keys: readonly K[]) => keys.map((key) => [key, paramShape[key]] as const);

const listOf = <S extends z.ZodType>(schema: S) => z.array(schema).min(1).max(10_000);

/** In `matrix`, every parameter takes a list of values. */
const matrixDimensions = () =>
  Object.fromEntries(pick(PARAM_NAMES).map(([key, schema]) => [key, listOf(schema).optional()])) as {
    [P in ParamName]: z.ZodOptional<z.ZodArray<Shape[P]>>;
  };

/** On a workload, a scalar parameter takes a value or a list of values (a list is a matrix dimension). */
const sweepShape = Object.fromEntries(
  pick(SWEEPABLE_PARAMS).map(([key, schema]) => [key, z.union([schema, listOf(schema)]).optional()]),
) as { [P in SweepableParam]: z.ZodOptional<z.ZodUnion<[Shape[P], z.ZodArray<Shape[P]>]>> };

type FixedParam = Exclude<ParamName, SweepableParam>;
const fixedShape = Object.fromEntries(
  pick(
    PARAM_NAMES.filter((key): key is FixedParam => !(SWEEPABLE_PARAMS as readonly string[]).includes(key)),
  ).map(([key, schema]) => [key, schema.optional()]),
) as { [P in FixedParam]: z.ZodOptional<Shape[P]> };

export const partialParams = z.strictObject(paramShape).partial();
export type PartialParams = z.output<typeof partialParams>;

const matrixSchema = z.strictObject({
  ...matrixDimensions(),
  include: z.array(partialParams).optional().describe("cells to add, or values to add to matching cells"),
  exclude: z.array(partialParams).optional().describe("remove the cells that match every key given"),
});

/** What a workload's rounds watch: one case's metric (the PTS tracking variable). */
export const ROUND_METRICS = ["iops", "throughput", "latency"] as const;
export type RoundMetric = (typeof ROUND_METRICS)[number];

/** Rounds to steady state (SNIA PTS): each round runs every case of the workload once. */
const roundsSchema = z.strictObject({
  track: z
    .strictObject({
      where: partialParams.describe(
        "parameters that select exactly one case of the workload on each of its targets",
      ),
      metric: z.enum(ROUND_METRICS).describe("the tracked figure of that case (latency: its mean)"),
    })
    .describe("the tracking variable: one case's metric per target, checked after every round"),
  window: count(2, 100, "window").optional().describe("rounds in the measurement window (default: 5)"),
  excursion: percent
    .optional()
    .describe("max − min over the window at most this share of its average (default: 20%)"),
  slope: percent
    .optional()
    .describe("the fitted line's rise over the window at most this share of its average (default: 10%)"),
  max: count(2, 1000, "max").optional().describe("rounds at most (default: 25)"),
});
export type Rounds = z.output<typeof roundsSchema>;

export const WorkloadSchema = z.strictObject({
  name: name("a workload name"),
  description: text.optional(),
  ...sweepShape,
  ...fixedShape,
  rounds: roundsSchema
    .optional()
    .describe("repeat the whole matrix in rounds until the tracked case reaches steady state (SNIA PTS)"),
  matrix: matrixSchema
    .optional()
    .describe("GitHub Actions-style matrix: cartesian product with include/exclude"),
});
export type Workload = z.output<typeof WorkloadSchema>;

/* ---------- expectations and report ---------- */

export { METRICS, type Metric } from "../rows/metric-names.js";

const expectSchema = z.strictObject({
  workload: name("a workload name"),
  description: text.optional(),
  where: partialParams.optional().describe("only the cases whose parameters match every key given"),
  metric: z.enum(METRICS),
  atLeast: exprSchema.optional(),
  atMost: exprSchema.optional(),
});
export type Expect = z.output<typeof expectSchema>;

const limitSchema = z.strictObject({
  label: text.min(1),
  throughput: z
    .union([rate, exprSchema])
    .optional()
    .describe('a rate, or an expression over vars: "min(50 + 0.1 * capacityGiB, 80) * 1MB/s"'),
  iops: z.union([z.number().positive(), exprSchema]).optional(),
  latency: z.union([positiveDuration, exprSchema]).optional(),
  target: name("a target name")
    .optional()
    .describe("the target this limit is of: drawn on its cases' charts, its formula evaluated with its vars"),
  interface: z
    .string()
    .regex(/^[A-Za-z0-9_.:@-]{1,15}$/, "a network interface name: 1 to 15 of A-Z a-z 0-9 _ . : @ -")
    .optional()
    .describe("the client's network interface this throughput limit is (its telemetry is compared with it)"),
});

const chartSchema = z.strictObject({
  workload: name("a workload name"),
  title: text.optional(),
  x: z.string().describe('a parameter name, or "time" for a time series'),
  y: z.enum(METRICS),
  color: z.string().optional(),
  facet: z.string().optional(),
  mark: z.enum(["bar", "line", "point"]).optional(),
});

const reportSchema = z.strictObject({
  title: text.optional(),
  limits: z.array(limitSchema).optional(),
  charts: z.array(chartSchema).optional(),
});

/* ---------- the spec ---------- */

export const SpecSchema = z
  .strictObject({
    benchspec: z.literal(1).describe("language version"),
    name: name("the spec name"),
    description: text.optional(),
    vars: z
      .record(varName, exprSchema)
      .optional()
      .describe(
        "named numbers and expressions, usable in expect and limit formulas; a target's vars override them",
      ),
    targets: z.record(name("a target name"), TargetSchema).describe("the storage to benchmark, by name"),
    hosts: z
      .record(name("a host group name"), HostGroupSchema)
      .optional()
      .describe("groups of client hosts that run workloads together, by name"),
    defaults: partialParams.optional().describe("parameter values for every workload"),
    workloads: z.array(WorkloadSchema).min(1, "a spec needs at least one workload"),
    expect: z.array(expectSchema).optional(),
    report: reportSchema.optional(),
  })
  .meta({ title: "benchspec spec", description: "A declarative storage benchmark (benchspec language v1)" });

export type Spec = z.output<typeof SpecSchema>;
export type SpecInput = z.input<typeof SpecSchema>;
