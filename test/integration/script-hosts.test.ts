/**
 * The compiled script on several real hosts without benchspec driving them: `compile --target slurm`'s sbatch
 * script submitted to a namespaced Slurm cluster, and the plain script started by hand over ssh on three
 * hosts with one epoch. Each time the copies' rows merge into one run of several hosts: per-host parts, bytes
 * summed, percentiles pooled from the copies' latency bins, starts within 100 ms of each other.
 */
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { minioForHosts, startHosts, type Hosts } from "../support/hosts.js";
import { ROOT } from "../support/spec.js";
import { expectMergedCopies, mergedCopies, START_SPREAD_BOUND } from "../support/merged.js";

const BIN = join(ROOT, "bin", "benchspec.js");

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "benchspec-script-hosts-"));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function compile(name: string, spec: object, targets: string) {
  const file = join(work, `${name}.yaml`);
  await writeFile(file, stringify(spec));
  const out = join(work, name);
  const result = await execa("node", [BIN, "compile", file, "--target", targets, "-o", out], { all: true });
  return { out, said: result.all };
}

/** dd and fio on each host's own storage, the fio case's latencies pooled across the hosts. */
const FILE_WORKLOADS = (path: string) => ({
  targets: { local: { kind: "fs", path } },
  workloads: [
    { name: "dd", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 16, repeat: 2 },
    {
      name: "fio",
      target: "local",
      engine: "fio",
      op: "randread",
      size: "8MiB",
      bs: "4KiB",
      ioengine: "psync",
      repeat: 2,
    },
  ],
});

describe("compile --target slurm: the sbatch script on three Slurm nodes", () => {
  let cluster: Hosts;
  let store: MinioServer;
  beforeAll(async () => {
    cluster = await startHosts({ count: 3, slurm: true });
    store = await minioForHosts(cluster, "scripthosts");
  });
  afterAll(async () => {
    await store?.stop();
    await cluster?.stop();
  });

  it("runs the cases on every node at once and merges their rows into one run", async () => {
    const files = FILE_WORKLOADS(cluster.privatePath);
    const spec = {
      benchspec: 1,
      name: "scripthosts",
      targets: {
        ...files.targets,
        store: {
          kind: "s3",
          endpoint: store.endpoint,
          bucket: "scripthosts",
          accessKey: "${env:BS_TEST_ACCESS_KEY}",
          secretKey: "${env:BS_TEST_SECRET_KEY}",
          region: store.region,
          pathStyle: true,
        },
      },
      hosts: { nodes: { transport: "slurm", nodes: 3, command: `node ${BIN}` } },
      defaults: { hosts: "nodes" },
      workloads: [
        ...files.workloads,
        { name: "s3", target: "store", op: "put", size: "64KiB", objects: 48, concurrency: 4, repeat: 2 },
      ],
    };
    const { out, said } = await compile("slurm", spec, "slurm,fio");
    expect(said).toContain('host group "nodes" (slurm, 3 nodes): sbatch slurm/nodes.sbatch');
    const env = {
      ...cluster.env,
      BS_TEST_ACCESS_KEY: store.accessKey,
      BS_TEST_SECRET_KEY: store.secretKey,
    };
    const submitted = await execa("sbatch", ["--parsable", "slurm/nodes.sbatch"], { cwd: out, env });
    const job = submitted.stdout.trim().split(";")[0]!;
    // Done when squeue no longer lists it (bounded: the cases take seconds).
    const deadline = Date.now() + 120_000;
    while ((await execa("squeue", ["-h", "-j", job], { env, reject: false })).stdout.trim() !== "") {
      expect(Date.now(), `job ${job} still queued or running`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const log = readFileSync(join(out, `slurm-${job}.out`), "utf8");
    const dir = join(out, `slurm-nodes-${job}`);
    const copies = (await readdir(dir)).filter((entry) => entry.startsWith("node-")).sort();
    expect(copies, log).toEqual(["node-0", "node-1", "node-2"]);
    const rows = mergedCopies(
      join(dir, "merged"),
      copies.map((copy) => join(dir, copy, "results.ndjson")),
    );
    expect(
      rows.map(({ row }) => row.case),
      log,
    ).toEqual([
      "dd.local.write",
      "dd.local.write",
      "fio.local.randread",
      "fio.local.randread",
      "s3.store.put",
      "s3.store.put",
    ]);
    for (const { row, parts } of rows) {
      // Named by the nodes Slurm placed the copies on, in their task order.
      expectMergedCopies(
        row,
        parts,
        parts.map((part) => part.host!),
      );
      expect(new Set(parts.map((part) => part.host))).toEqual(new Set(["h1", "h2", "h3"]));
    }
    expect(rows.find(({ row }) => row.case === "dd.local.write")!.row.bytes).toBe(3 * 16 * 2 ** 20);
    // The S3 copies wrote under keys of their own and removed what they wrote.
    const objects = await execa(
      "aws",
      ["s3api", "list-objects-v2", "--bucket", "scripthosts", "--endpoint-url", store.endpoint],
      {
        env: {
          AWS_ACCESS_KEY_ID: store.accessKey,
          AWS_SECRET_ACCESS_KEY: store.secretKey,
          AWS_DEFAULT_REGION: store.region,
        },
      },
    );
    expect((JSON.parse(objects.stdout) as { Contents?: unknown[] }).Contents ?? []).toEqual([]);
    const summary = JSON.parse(readFileSync(join(dir, "merged", "summary.json"), "utf8")) as {
      cases: { id: string; hosts?: unknown }[];
    };
    expect(summary.cases.map((c) => c.id)).toEqual(["dd.local.write", "fio.local.randread", "s3.store.put"]);
    expect(summary.cases.every((c) => c.hosts !== undefined)).toBe(true);
  });
});

describe("the script started by hand on three ssh hosts with one epoch", () => {
  let rig: Hosts;
  beforeAll(async () => {
    rig = await startHosts({ count: 3 });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it("starts each repetition at epoch + slot × period on every host, and merges into one run", async () => {
    const files = FILE_WORKLOADS(rig.privatePath);
    const spec = {
      benchspec: 1,
      name: "byhand",
      ...files,
      hosts: { clients: { transport: "ssh", hosts: ["h1", "h2", "h3"] } },
      defaults: { hosts: "clients" },
    };
    const { out, said } = await compile("byhand", spec, "shell,fio");
    expect(said).toContain(
      'host group "clients" (ssh, 3 hosts): benchspec.sh on each host at once with BENCHSPEC_GROUP=clients BENCHSPEC_HOST_COUNT=3',
    );
    const outputs = join(work, "byhand-out");
    await mkdir(outputs);
    await copyFile(join(out, "plan.json"), join(outputs, "plan.json"));
    // 2 dd and 2 fio repetitions, a slot of 2.5 s each.
    const epoch = Math.ceil(Date.now() / 1000) + 4;
    const period = 2.5;
    const started = rig.hosts.map((host, index) =>
      execa(
        "ssh",
        [
          "-F",
          rig.sshConfig,
          host.name,
          `mkdir -p ${outputs}/${host.name} && BENCHSPEC_GROUP=clients BENCHSPEC_HOST_COUNT=3 BENCHSPEC_HOST_INDEX=${index} BENCHSPEC_EPOCH=${epoch} BENCHSPEC_PERIOD=${period} bash ${out}/benchspec.sh >${outputs}/${host.name}/results.ndjson`,
        ],
        { reject: false, all: true },
      ),
    );
    for (const result of await Promise.all(started)) expect(result.exitCode, result.all).toBe(0);
    const copies = rig.hosts.map((host) => join(outputs, host.name));
    const merge = await execa("node", [BIN, "merge", ...copies, "-o", join(work, "byhand-merged")], {
      reject: false,
      all: true,
    });
    expect(merge.exitCode, merge.all).toBe(0);
    const rows = mergedCopies(
      join(work, "byhand-merged"),
      copies.map((copy) => join(copy, "results.ndjson")),
    );
    expect(rows).toHaveLength(4);
    for (const [slot, { row, parts }] of rows.entries()) {
      expectMergedCopies(row, parts, ["h1", "h2", "h3"]);
      // Every host's I/O began at its slot's instant (dd's release; fio's start), within the bound.
      for (const part of parts)
        expect(Math.abs(Date.parse(part.start) / 1000 - (epoch + slot * period)), part.case).toBeLessThan(
          START_SPREAD_BOUND,
        );
    }
  });
});
