import { mkdtemp, readFile, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mixSequence } from "../../src/engines/s3/sdk.js";
import { compilePlan } from "../../src/compile/compile.js";
import { engineFacts } from "../../src/engines/index.js";
import { atIndex, autotuneRounds, batchIndices, objectSize } from "../../src/emit/sdk-format.js";
import { sizeAt } from "../../src/rows/sizes.js";
import { sdkJsonSchema, SdkDocumentSchema, type SdkDocument } from "../../src/engines/sdk-schema.js";
import type { IpfsSdkDocument } from "../../src/engines/ipfs/sdk-schema.js";
import type { S3SdkDocument } from "../../src/engines/s3/sdk-schema.js";
import type { Artifact } from "../../src/emit/types.js";
import type { Plan } from "../../src/plan/types.js";
import { loadSpec } from "../../src/engines/language.js";
import { runCli } from "../support/cli.js";
import { planOf, ROOT } from "../support/spec.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** The sdk target alone cannot express dd/fio cases, so the shipped specs are compiled with only theirs. */
const sdkCases = (plan: Plan): Plan => ({
  ...plan,
  cases: plan.cases.filter((c) => engineFacts(c.engine).formats.includes("sdk")),
});

const compileSdk = async (plan: Plan): Promise<Artifact[]> =>
  (await compilePlan(sdkCases(plan), ["sdk"], "0.0.0")).artifacts;

function documents(artifacts: Artifact[]): Map<string, SdkDocument> {
  const docs = new Map<string, SdkDocument>();
  for (const artifact of artifacts) {
    if (!artifact.path.startsWith("sdk/")) continue;
    docs.set(artifact.path, SdkDocumentSchema.parse(JSON.parse(artifact.content)));
  }
  return docs;
}

async function shipped(name: string): Promise<Plan> {
  const result = await loadSpec(join(ROOT, "specs", name));
  expect(result.diagnostics).toEqual([]);
  return result.plan!;
}

/** Every concrete key (or ref) a batch entry stands for. */
const expand = (entry: { from: number; count: number }, pattern: string) =>
  [...batchIndices(entry)].map((i) => atIndex(pattern, i));

const s3 = (doc: SdkDocument | undefined): S3SdkDocument => {
  if (doc?.engine !== "s3") throw new Error("not an s3 document");
  return doc;
};
const ipfs = (doc: SdkDocument | undefined): IpfsSdkDocument => {
  if (doc?.engine !== "ipfs") throw new Error("not an ipfs document");
  return doc;
};

/** Checks the S3 invariants every document must keep and returns the uploads per repetition. */
function checkS3(doc: S3SdkDocument, objects: number, size: number) {
  const plannedReps = doc.repetitions.length;
  let uploads = 0;
  for (const rep of doc.repetitions) {
    const ops = [...(rep.setup?.ops ?? []), ...rep.measured.ops];
    const put: string[] = [];
    for (const op of ops) {
      if (op.op !== "PutObject" && op.op !== "MultipartUpload") continue;
      put.push(...expand(op, op.key));
      expect(op.size).toBe(size);
      if (op.op === "MultipartUpload") {
        const parts = op.calls[1];
        expect(parts.parts).toBe(Math.ceil(size / parts.partSize));
        expect((parts.parts! - 1) * parts.partSize + parts.lastPartSize!).toBe(size);
        expect(parts.lastPartSize).toBeGreaterThan(0);
        expect(parts.lastPartSize).toBeLessThanOrEqual(parts.partSize);
      }
    }
    uploads += put.length;
    expect(new Set(put).size).toBe(objects);
    // cleanup deletes exactly the keys this repetition put, and aborts incomplete uploads under its prefix
    const deleted = rep.cleanup.flatMap((op) => (op.op === "DeleteObjects" ? expand(op, op.key) : []));
    expect(deleted.sort()).toEqual([...put].sort());
    const prefixes = rep.cleanup.flatMap((op) => (op.op === "AbortMultipartUploads" ? [op.prefix] : []));
    expect(prefixes).toHaveLength(1);
    expect(put.filter((key) => !key.startsWith(prefixes[0]!))).toEqual([]);
  }
  expect(uploads).toBe(objects * plannedReps);
  return uploads;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("sdk call sequences of the shipped specs", () => {
  it("object-upload-download: multipart uploads, ranged gets, exact cleanup", async () => {
    const plan = await shipped("object-upload-download.yaml");
    const docs = documents(await compileSdk(plan));
    expect([...docs.keys()].sort()).toEqual(plan.cases.map((c) => `sdk/${c.id}.json`).sort());
    for (const c of plan.cases) {
      const doc = s3(docs.get(`sdk/${c.id}.json`));
      expect(doc).toMatchObject({ case: c.id, workload: "transfer", op: c.op, spec: plan.name });
      expect(doc.prefix).toBe(`benchspec/object-upload-download/{runId}/${c.id}/`);
      expect(doc.target).toEqual({
        name: "store",
        kind: "s3",
        launch: "minio",
        bucket: "benchspec",
        credentials: { from: "launch" },
      });
      expect(doc.repetitions.map((r) => [r.repetition, r.warmup])).toEqual([
        [1, false],
        [2, false],
        [3, false],
      ]);
      const objects = c.params.objects!;
      expect(checkS3(doc, objects, GiB)).toBe(objects * 3);
      for (const rep of doc.repetitions) {
        expect(rep.measured.concurrency).toBe(c.params.concurrency);
        expect(rep.measured.sample).toBe(1);
        const upload = [...(rep.setup?.ops ?? []), ...rep.measured.ops].find(
          (op) => op.op === "MultipartUpload",
        );
        expect(upload?.op === "MultipartUpload" && upload.calls).toEqual([
          { call: "CreateMultipartUpload" },
          { call: "UploadParts", partSize: 128 * MiB, parts: 8, lastPartSize: 128 * MiB, queue: 8 },
          { call: "CompleteMultipartUpload" },
        ]);
        if (c.op === "get") {
          expect(rep.setup?.concurrency).toBe(c.params.concurrency);
          expect(rep.measured.ops).toEqual([
            {
              op: "GetObject",
              from: 0,
              count: objects,
              key: `r${rep.repetition}/o{i}`,
              size: GiB,
              ranges: { partSize: 128 * MiB, parts: 8, lastPartSize: 128 * MiB, queue: 8 },
            },
          ]);
        } else {
          expect(rep.setup).toBeUndefined();
        }
      }
    }
    // 50 × 1 GiB in 128 MiB parts, three repetitions: a couple of hundred lines, not thousands
    const big = (await compileSdk(plan)).find(
      (a) => a.path === "sdk/transfer.store.get.concurrency-50.objects-50.json",
    )!;
    expect(big.content.split("\n").length).toBeLessThan(300);
  });

  it("ipfs-file-sizes: add with the case's options, cat by reference, fresh node per repetition", async () => {
    const plan = await shipped("ipfs-file-sizes.yaml");
    const docs = documents(await compileSdk(plan));
    expect(docs.size).toBe(28);
    const seeds = new Set<string>();
    for (const c of plan.cases) {
      const doc = docs.get(`sdk/${c.id}.json`)!;
      if (doc.engine === "s3") {
        checkS3(doc, 1, c.params.size as number);
        expect(doc.repetitions).toHaveLength(5);
        continue;
      }
      expect(doc.target).toEqual({ name: "ipfs", kind: "ipfs", launch: "kubo", fresh: "per-repetition" });
      expect(doc.repetitions).toHaveLength(5);
      let adds = 0;
      for (const rep of doc.repetitions) {
        expect(rep.freshNode).toBe(true);
        const addOps = [...(rep.setup?.ops ?? []), ...rep.measured.ops].flatMap((op) =>
          op.op === "add" ? [op] : [],
        );
        expect(addOps).toHaveLength(1);
        const add = addOps[0]!;
        expect(add).toMatchObject({
          size: c.params.size,
          chunker: "size-262144",
          cidVersion: 0,
          rawLeaves: false,
          pin: true,
        });
        const refs = expand(add, add.ref);
        adds += refs.length;
        for (const i of batchIndices(add)) seeds.add(atIndex(add.seed, i));
        if (c.op === "get") {
          expect(rep.measured.ops).toEqual([
            { op: "cat", from: 0, count: 1, cid: { ref: add.ref }, size: c.params.size },
          ]);
        } else {
          expect(rep.setup).toBeUndefined();
        }
        // cleanup unpins exactly what was added (and pinned), then collects
        expect(rep.cleanup).toEqual([
          { op: "pin/rm", from: 0, count: 1, cid: { ref: add.ref } },
          { op: "repo/gc" },
        ]);
      }
      expect(adds).toBe(5);
    }
    // unique data per case and repetition: no seed repeats
    expect(seeds.size).toBe(14 * 5);
    expect([...seeds]).toContain("file-sizes.ipfs.put.size-1MB/r3/o0");
  });

  it("minio-speedtest: autotuned concurrency rounds over 256 objects (as many as the highest round)", async () => {
    const plan = await shipped("minio-speedtest.yaml");
    const docs = documents(await compileSdk(plan));
    expect([...docs.keys()].sort()).toEqual(["sdk/speedtest.store.get.json", "sdk/speedtest.store.put.json"]);
    for (const doc of docs.values()) {
      checkS3(s3(doc), 256, 64 * MiB);
      const [rep] = s3(doc).repetitions;
      expect(rep!.measured.concurrency).toBe(4);
      expect(rep!.measured.autotune).toEqual({
        rounds: [4, 8, 16, 32, 64, 128, 256],
        stopWhenGainBelow: 2.5,
      });
      // 64 MiB objects without multipart: plain PutObject
      expect([...(rep!.setup?.ops ?? []), ...rep!.measured.ops].some((op) => op.op === "PutObject")).toBe(
        true,
      );
    }
  });

  it("compiles the same spec to identical bytes twice", async () => {
    for (const name of ["object-upload-download.yaml", "ipfs-file-sizes.yaml", "minio-speedtest.yaml"]) {
      const first = await compileSdk(await shipped(name));
      const second = await compileSdk(await shipped(name));
      expect(second).toEqual(first);
      expect(first.filter((a) => a.path.startsWith("sdk/")).length).toBeGreaterThan(0);
    }
  });
});

describe("secrets", () => {
  const SENTINELS = {
    SENTINEL_KEY: "AKIA-SENTINEL-7f3a91",
    SENTINEL_SECRET: "sentinel-secret-c0ffee-42",
    SENTINEL_ENDPOINT: "https://sentinel-endpoint.invalid",
    SENTINEL_API: "http://sentinel-api.invalid:5001",
  };

  it("a secret in the environment appears in no artifact; its ${env:…} reference does", async () => {
    for (const [name, value] of Object.entries(SENTINELS)) vi.stubEnv(name, value);
    const plan = planOf({
      benchspec: 1,
      name: "secrets",
      targets: {
        store: {
          kind: "s3",
          endpoint: "${env:SENTINEL_ENDPOINT}",
          bucket: "bench",
          region: "us-east-1",
          accessKey: "${env:SENTINEL_KEY}",
          secretKey: "${env:SENTINEL_SECRET}",
        },
        node: { kind: "ipfs", api: "${env:SENTINEL_API}" },
      },
      workloads: [{ name: "w", target: ["store", "node"], op: ["put", "get"], size: "1MiB", objects: 2 }],
    });
    const artifacts = await compileSdk(plan);
    expect(artifacts.length).toBe(5);
    for (const artifact of artifacts) {
      for (const value of Object.values(SENTINELS)) expect(artifact.content).not.toContain(value);
    }
    const doc = s3(documents(artifacts).get("sdk/w.store.put.json"));
    expect(doc.target).toEqual({
      name: "store",
      kind: "s3",
      endpoint: "${env:SENTINEL_ENDPOINT}",
      bucket: "bench",
      region: "us-east-1",
      credentials: {
        from: "env",
        accessKeyId: "${env:SENTINEL_KEY}",
        secretAccessKey: "${env:SENTINEL_SECRET}",
      },
    });
    expect(artifacts.find((a) => a.path === "sdk/w.store.put.json")!.content).toContain(
      "${env:SENTINEL_KEY}",
    );
    expect(ipfs(documents(artifacts).get("sdk/w.node.get.json")).target).toEqual({
      name: "node",
      kind: "ipfs",
      api: "${env:SENTINEL_API}",
    });
  });

  it("a credential written literally in the spec is not copied into a call sequence", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "literal",
      targets: {
        store: {
          kind: "s3",
          endpoint: "http://127.0.0.1:9000",
          accessKey: "LITERALKEY123",
          secretKey: "x${env:A}",
        },
      },
      workloads: [{ name: "w", op: "put", size: "1MiB", objects: 1 }],
    });
    const [artifact] = (await compileSdk(plan)).filter((a) => a.path.startsWith("sdk/"));
    expect(artifact!.content).not.toContain("LITERALKEY123");
    expect(s3(documents([artifact!]).get(artifact!.path)).target.credentials).toEqual({ from: "spec" });
  });

  it("without credentials the AWS chain is named", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "chain",
      targets: { store: { kind: "s3", endpoint: "${env:S3_ENDPOINT}", pathStyle: true } },
      workloads: [{ name: "w", op: "put", size: "1MiB", objects: 1 }],
    });
    const doc = s3([...documents(await compileSdk(plan)).values()][0]);
    expect(doc.target).toEqual({
      name: "store",
      kind: "s3",
      endpoint: "${env:S3_ENDPOINT}",
      bucket: "benchspec",
      pathStyle: true,
      credentials: { from: "chain" },
    });
  });
});

describe("sdk call sequences: shapes", () => {
  const s3Spec = (workload: object, target: object = {}) => ({
    benchspec: 1,
    name: "shapes",
    targets: { store: { kind: "s3", launch: "minio", ...target } },
    workloads: [{ name: "w", ...workload }],
  });
  const only = async (plan: Plan) => [...documents(await compileSdk(plan)).values()];

  it("10,000 objects per repetition stay a small file", async () => {
    const plan = planOf(
      s3Spec({
        op: ["put", "get", "stat", "delete", "list"],
        size: "4KiB",
        objects: 10_000,
        repeat: 3,
        warmup: 1,
      }),
    );
    const artifacts = (await compileSdk(plan)).filter((a) => a.path.startsWith("sdk/"));
    expect(artifacts).toHaveLength(5);
    for (const artifact of artifacts) {
      expect(artifact.content.length).toBeLessThan(8_000);
      const doc = s3(documents([artifact]).get(artifact.path));
      expect(checkS3(doc, 10_000, 4096)).toBe(40_000);
    }
  });

  it("numbers warm-ups and measured repetitions separately, warm-ups first, with distinct keys", async () => {
    const [doc] = await only(planOf(s3Spec({ op: "put", size: "1MiB", objects: 3, repeat: 2, warmup: 1 })));
    const reps = s3(doc).repetitions;
    expect(reps.map((r) => [r.repetition, r.warmup])).toEqual([
      [1, true],
      [1, false],
      [2, false],
    ]);
    expect(reps.map((r) => (r.measured.ops[0]!.op === "PutObject" ? r.measured.ops[0]!.key : ""))).toEqual([
      "w1/o{i}",
      "r1/o{i}",
      "r2/o{i}",
    ]);
    expect(reps[1]!.measured.ops[0]).toMatchObject({ seed: "w.store.put/r1/o{i}" });
  });

  it("stat, delete and list upload first, unmeasured", async () => {
    const docs = await only(
      planOf(s3Spec({ op: ["stat", "delete", "list"], size: "1KiB", objects: 2500, concurrency: 8 })),
    );
    const byOp = Object.fromEntries(docs.map((d) => [d.op, s3(d).repetitions[0]!]));
    for (const rep of Object.values(byOp)) {
      expect(rep.setup).toEqual({
        concurrency: 8,
        ops: [
          {
            op: "PutObject",
            from: 0,
            count: 2500,
            key: "r1/o{i}",
            seed: expect.stringMatching(/\/r1\/o\{i\}$/),
            size: 1024,
          },
        ],
      });
    }
    expect(byOp.stat!.measured.ops).toEqual([
      { op: "HeadObject", from: 0, count: 2500, key: "r1/o{i}", size: 1024 },
    ]);
    expect(byOp.delete!.measured.ops).toEqual([{ op: "DeleteObject", from: 0, count: 2500, key: "r1/o{i}" }]);
    expect(byOp.list!.measured.ops).toEqual([
      { op: "ListObjectsV2", from: 0, count: 8, prefix: "r1/", maxKeys: 1000, expectKeys: 2500 },
    ]);
  });

  it("a last part smaller than the others, and objects of one part go up in one PutObject", async () => {
    const docs = await only(
      planOf(
        s3Spec({
          op: ["put", "get"],
          size: ["100MiB", "16MiB"],
          objects: 2,
          multipart: { partSize: "30MiB", queue: 2 },
        }),
      ),
    );
    const put = s3(docs.find((d) => d.case === "w.store.put.size-100MiB")).repetitions[0]!.measured.ops[0]!;
    expect(put.op === "MultipartUpload" && put.calls[1]).toEqual({
      call: "UploadParts",
      partSize: 30 * MiB,
      parts: 4,
      lastPartSize: 10 * MiB,
      queue: 2,
    });
    const get = s3(docs.find((d) => d.case === "w.store.get.size-100MiB")).repetitions[0]!.measured.ops[0]!;
    expect(get).toMatchObject({ op: "GetObject", ranges: { parts: 4, lastPartSize: 10 * MiB } });
    const small = s3(docs.find((d) => d.case === "w.store.put.size-16MiB")).repetitions[0]!.measured.ops[0]!;
    expect(small.op).toBe("PutObject");
    const smallGet = s3(docs.find((d) => d.case === "w.store.get.size-16MiB")).repetitions[0]!.measured
      .ops[0]!;
    expect(smallGet).not.toHaveProperty("ranges");
  });

  it("time-based cases carry their duration; keep: true keeps the objects but aborts incomplete uploads", async () => {
    const [doc] = await only(
      planOf(s3Spec({ op: "put", size: "1MiB", objects: 4, duration: "10s" }, { keep: true })),
    );
    const rep = s3(doc).repetitions[0]!;
    expect(rep.measured.duration).toBe(10);
    expect(rep.cleanup).toEqual([{ op: "AbortMultipartUploads", prefix: "r1/" }]);
    expect(s3(doc).target.keep).toBe(true);
  });

  it("refuses what S3 cannot do, naming the workload", async () => {
    await expect(compileSdk(planOf(s3Spec({ op: "delete", size: "1MiB", duration: "5s" })))).rejects.toThrow(
      expect.objectContaining({ code: "not-compilable" }),
    );
    await expect(
      compileSdk(planOf(s3Spec({ op: "put", size: "64GiB", multipart: { partSize: "5MiB", queue: 4 } }))),
    ).rejects.toThrow(/workload "w": 13108 parts/);
  });

  it("ipfs: fresh per-case starts the case's first repetition on a new node; once never does; pin: false only collects", async () => {
    const spec = (fresh: string) => ({
      benchspec: 1,
      name: "fresh",
      targets: { node: { kind: "ipfs", launch: "kubo", fresh } },
      workloads: [{ name: "w", op: "put", objects: 3, concurrency: 2, pin: false, repeat: 2, warmup: 1 }],
    });
    const perCase = ipfs((await only(planOf(spec("per-case"))))[0]);
    expect(perCase.repetitions.map((r) => r.freshNode)).toEqual([true, false, false]);
    expect(perCase.repetitions[0]!.cleanup).toEqual([{ op: "repo/gc" }]);
    expect(perCase.repetitions[1]!.measured).toEqual({
      concurrency: 2,
      ops: [
        {
          op: "add",
          from: 0,
          count: 3,
          ref: "r1/o{i}",
          seed: "w.node.put/r1/o{i}",
          size: MiB,
          chunker: "size-262144",
          cidVersion: 1,
          rawLeaves: true,
          pin: false,
        },
      ],
    });
    const once = ipfs((await only(planOf(spec("once"))))[0]);
    expect(once.target.fresh).toBe("once");
    expect(once.repetitions.map((r) => r.freshNode)).toEqual([false, false, false]);
  });

  it("ipfs on an external node: never repo/gc; block/rm of exactly the added blocks, only for content unique to the run", async () => {
    const cleanupOf = async (target: object, workload: object) =>
      ipfs(
        (
          await only(
            planOf({
              benchspec: 1,
              name: "external",
              targets: { node: { kind: "ipfs", ...target } },
              workloads: [{ name: "w", op: "put", objects: 3, size: "1MiB", ...workload }],
            }),
          )
        )[0],
      ).repetitions[0]!.cleanup;
    const api = { api: "http://127.0.0.1:5001" };
    const added = { from: 0, count: 3, cid: { ref: "r1/o{i}" } };
    expect(await cleanupOf(api, { pin: true })).toEqual([
      { op: "pin/rm", ...added },
      { op: "block/rm", ...added },
    ]);
    expect(await cleanupOf(api, { pin: false })).toEqual([{ op: "block/rm", ...added }]);
    expect(await cleanupOf(api, { pin: false, data: { compressible: 50 } })).toEqual([
      { op: "block/rm", ...added },
    ]);
    // Zero data may share its blocks with the user's: only unpinned, never removed.
    expect(await cleanupOf(api, { pin: true, data: "zero" })).toEqual([{ op: "pin/rm", ...added }]);
    expect(await cleanupOf(api, { pin: false, data: "zero" })).toEqual([]);
    expect(await cleanupOf({ ...api, keep: true }, { pin: true })).toEqual([]);
    // A launched node is benchspec's own: garbage collection is fine there.
    expect(await cleanupOf({ launch: "kubo" }, { pin: true })).toEqual([
      { op: "pin/rm", ...added },
      { op: "repo/gc" },
    ]);

    // The format itself refuses repo/gc on a node it did not launch.
    const doc = ipfs(
      (
        await only(
          planOf({
            benchspec: 1,
            name: "external",
            targets: { node: { kind: "ipfs", ...api } },
            workloads: [{ name: "w", op: "put", objects: 1, size: "1MiB" }],
          }),
        )
      )[0],
    );
    const gc = {
      ...doc,
      repetitions: doc.repetitions.map((r) => ({ ...r, cleanup: [{ op: "repo/gc" as const }] })),
    };
    expect(() => SdkDocumentSchema.parse(gc)).toThrow(/repo\/gc only on a launched node/);
    expect(() =>
      SdkDocumentSchema.parse({
        ...gc,
        target: { ...gc.target, api: undefined, launch: "kubo", fresh: "once" },
      }),
    ).not.toThrow();
  });

  it("autotune rounds: ×factor, at least +1, capped at max", async () => {
    expect(autotuneRounds(4, 2, 256)).toEqual([4, 8, 16, 32, 64, 128, 256]);
    expect(autotuneRounds(4, 1.5, 20)).toEqual([4, 6, 9, 14, 20]);
    expect(autotuneRounds(1, 1.1, 4)).toEqual([1, 2, 3, 4]);
    expect(autotuneRounds(8, 2, 8)).toEqual([8]);
  });
});

describe("schema/sdk.schema.json", () => {
  it("is what `benchspec schema` generates from the zod format (run `npm run schema` after changing it)", async () => {
    expect(readFileSync(join(ROOT, "schema/sdk.schema.json"), "utf8")).toBe(sdkJsonSchema());
  });

  it("`benchspec schema -o FILE` writes sdk.schema.json next to FILE", async () => {
    const dir = await mkdtemp(join(tmpdir(), "benchspec-sdk-"));
    try {
      expect((await runCli(["schema", "-o", join(dir, "benchspec.schema.json")])).code).toBe(0);
      expect(await readFile(join(dir, "sdk.schema.json"), "utf8")).toBe(sdkJsonSchema());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is strict and names the operations", async () => {
    const schema = JSON.parse(sdkJsonSchema());
    const text = JSON.stringify(schema);
    for (const op of [
      "PutObject",
      "MultipartUpload",
      "UploadParts",
      "GetObject",
      "DeleteObjects",
      "cat",
      "block/rm",
      "repo/gc",
    ]) {
      expect(text).toContain(`"${op}"`);
    }
    expect(schema.$defs.S3Document.additionalProperties).toBe(false);
  });
});

describe("docs/sdk-format.md", () => {
  it("its examples are valid documents and repetitions", async () => {
    const text = readFileSync(join(ROOT, "docs/sdk-format.md"), "utf8");
    const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
    expect(blocks).toHaveLength(3);
    SdkDocumentSchema.parse(blocks[0]);
    // "Drawn sizes": each example is a size an entry may carry, and draws what the text says.
    const [buckets, uniform] = (blocks[2] as unknown[]).map((size) => objectSize.parse(size));
    expect([4096, 1048576]).toContain(sizeAt(buckets!, 0));
    for (let i = 0; i < 100; i++) expect(sizeAt(uniform!, i)).toBeGreaterThanOrEqual(4096);
    const ipfsDoc = {
      ...blocks[0],
      engine: "ipfs",
      target: { name: "node", kind: "ipfs", launch: "kubo", fresh: "per-repetition" },
      repetitions: [blocks[1]],
    };
    delete ipfsDoc.prefix;
    SdkDocumentSchema.parse(ipfsDoc);
  });
});

describe("S3 op mixed", () => {
  it("each operation gets its share, interleaved so every stretch of the list has the mix", async () => {
    const sequence = mixSequence({ get: 45, stat: 30, put: 15, delete: 10 }, 20);
    const count = (kind: string) => sequence.filter((k) => k === kind).length;
    expect([count("get"), count("stat"), count("put"), count("delete")]).toEqual([9, 6, 3, 2]);
    // No run of one kind longer than its share allows: the first 10 already hold every kind.
    expect(new Set(sequence.slice(0, 10))).toEqual(new Set(["get", "stat", "put", "delete"]));
    // Shares that do not divide evenly still add up to the total (largest remainders).
    expect(mixSequence({ get: 33, put: 33, stat: 34 }, 7)).toHaveLength(7);
    expect(mixSequence({ get: 100 }, 5)).toEqual(["get", "get", "get", "get", "get"]);
  });
});
