/**
 * Kubernetes, for real: a control plane and three nodes on this machine (scripts/kube/cluster.sh), the benchspec
 * image built from the repository's Containerfile on a base made here (scripts/kube/image.sh), and the real
 * `bin/benchspec.js run` coordinating pods of an Indexed Job through the API server with the real kubectl.
 * First the cluster itself (indexes from the Job controller, a server on the host reached from a pod of
 * each node), then the transport: cases from three pods on three nodes merged, and each fault bounded and
 * named — a node lost among them — with nothing of the run left in the cluster.
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { ResultRow } from "../../src/rows/row.js";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { minioWithBucket } from "../engines/support.js";
import {
  BENCHSPEC_IMAGE,
  KUBE_BIN,
  NODE_ADDRESS,
  nodeName,
  NODES,
  startCluster,
  type Cluster,
} from "../support/kube.js";
import { expectMerged, expectMergedCopies, mergedCopies } from "../support/merged.js";
import { until } from "../support/poll.js";
import { fsSpec, planOf, ROOT } from "../support/spec.js";
import { kubernetesJob } from "../../src/compile/kubernetes-job.js";
import type { HostGroup } from "../../src/spec/schema.js";
import { tempDirs } from "../support/temp.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const SECRET_ENV = "BS_TEST_SECRET_KEY";
const newDir = tempDirs("benchspec-kube-");

let cluster: Cluster;
let work: string;
let minio: MinioServer;

beforeAll(async () => {
  work = await newDir();
  cluster = await startCluster(join(work, "cluster"));
  await cluster.benchspecImage(join(work, "image"));
  minio = await minioWithBucket("pods", { host: NODE_ADDRESS });
}, 900_000);

afterAll(async () => {
  await minio?.stop();
  await cluster?.stop();
}, 180_000);

describe("the Kubernetes test cluster", () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // A shell image from Debian's static busybox, imported, never pulled.
    const image = join(work, "busybox");
    await mkdir(join(image, "root", "bin"), { recursive: true });
    await execa("cp", ["/bin/busybox", join(image, "root", "bin", "busybox")]);
    await execa("ln", ["-s", "busybox", join(image, "root", "bin", "sh")]);
    const archive = join(image, "busybox.tar");
    await execa("bash", [
      join(ROOT, "scripts", "kube", "oci-image.sh"),
      archive,
      "benchspec.local/busybox:1",
      join(image, "root"),
      "/bin/sh",
    ]);
    await cluster.image(archive);
    server = createServer((request, response) => response.end(`seen ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, NODE_ADDRESS, resolve));
    port = (server.address() as { port: number }).port;
  }, 120_000);

  afterAll(() => {
    server?.close();
  });

  it("runs an Indexed Job whose pods, one per node, know their index and reach a server on the host", async () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "indexed" },
      spec: {
        completionMode: "Indexed",
        completions: 3,
        parallelism: 3,
        template: {
          metadata: { labels: { app: "indexed" } },
          spec: {
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  {
                    labelSelector: { matchLabels: { app: "indexed" } },
                    topologyKey: "kubernetes.io/hostname",
                  },
                ],
              },
            },
            containers: [
              {
                name: "c",
                image: "benchspec.local/busybox:1",
                imagePullPolicy: "Never",
                command: [
                  "/bin/sh",
                  "-c",
                  `echo index=$JOB_COMPLETION_INDEX; busybox wget -q -O - http://${NODE_ADDRESS}:${port}/from-$JOB_COMPLETION_INDEX`,
                ],
              },
            ],
          },
        },
      },
    };
    expect((await cluster.kubectl(["apply", "-f", "-"], JSON.stringify(job))).exitCode).toBe(0);
    const done = await cluster.kubectl(["wait", "--for=condition=complete", "job/indexed", "--timeout=90s"]);
    expect(done.exitCode, done.stderr).toBe(0);
    const pods = (await cluster.kubectl(["get", "pods", "-l", "job-name=indexed", "-o", "name"])).stdout
      .split("\n")
      .filter(Boolean);
    const logs = await Promise.all(pods.map(async (pod) => (await cluster.kubectl(["logs", pod])).stdout));
    expect(logs.sort()).toEqual([0, 1, 2].map((i) => `index=${i}\nseen /from-${i}`));
    // Through each node's own pod network and the host's route to it.
    const nodes = await cluster.kubectl([
      "get",
      "pods",
      "-l",
      "job-name=indexed",
      "-o",
      "jsonpath={.items[*].spec.nodeName}",
    ]);
    expect(nodes.stdout.split(" ").sort()).toEqual([1, 2, 3].map(nodeName));
    expect((await cluster.kubectl(["delete", "job", "indexed", "--cascade=foreground"])).exitCode).toBe(0);
  }, 120_000);
});

describe("the Job of a kubernetes group", () => {
  it("with every key a group takes, is accepted by the real API server (server-side dry run)", async () => {
    const plan = planOf(
      fsSpec([{ name: "w", engine: "dd", op: "write", hosts: "pods" }], {
        hosts: {
          pods: {
            transport: "kubernetes",
            pods: 3,
            image: "registry.example/benchspec:0.1.0",
            imagePullPolicy: "IfNotPresent",
            namespace: "bench",
            spread: "zone",
            nodeSelector: { "kubernetes.io/os": "linux" },
            tolerations: [{ key: "dedicated", operator: "Equal", value: "bench", effect: "NoSchedule" }],
            resources: { requests: { cpu: 2, memory: "4Gi" }, limits: { memory: "4Gi" } },
            serviceAccount: "bench",
            volumes: [
              { path: "/data", storageClass: "fast", size: "10GiB" },
              { device: "/dev/bench", storageClass: "fast", size: "1GiB" },
              { path: "/shared", claim: "shared", readOnly: true },
              { path: "/scratch", hostPath: "/mnt/nvme0" },
            ],
          },
        },
      }),
    );
    const job = kubernetesJob(plan.hosts.pods as Extract<HostGroup, { transport: "kubernetes" }>, {
      name: "benchspec-dry",
      command: ["sh", "-c", "exec benchspec worker"],
      stdin: true,
      ttlSeconds: 60,
    });
    expect((await cluster.kubectl(["create", "namespace", "bench"])).exitCode).toBe(0);
    try {
      const created = await cluster.kubectl(
        ["create", "--dry-run=server", "-f", "-", "-o", "name"],
        JSON.stringify(job),
      );
      expect(created.exitCode, created.stderr).toBe(0);
      expect(created.stdout.trim()).toBe("job.batch/benchspec-dry");
    } finally {
      await cluster.kubectl(["delete", "namespace", "bench", "--wait=false"]);
    }
  });
});

/* ---------- the kubernetes transport ---------- */

const pods = (extra: object = {}) => ({
  transport: "kubernetes",
  pods: 3,
  image: BENCHSPEC_IMAGE,
  imagePullPolicy: "Never",
  kubeconfig: cluster.kubeconfig,
  // A pod without requests is BestEffort: its CPU share is the least there is, and under the rest of the
  // suite its worker's start came 161 ms late once. Half a core each, as a benchmark's pods would ask.
  resources: { requests: { cpu: "500m", memory: "128Mi" } },
  ...extra,
});

const targets = () => ({
  // Each pod's own file system.
  local: { kind: "fs", path: "/tmp" },
  store: {
    kind: "s3",
    endpoint: minio.endpoint,
    bucket: "pods",
    accessKey: "${env:BS_TEST_ACCESS_KEY}",
    secretKey: `\${env:${SECRET_ENV}}`,
    region: minio.region,
    pathStyle: true,
  },
});

const fioRead = (duration: string) => ({
  name: "long",
  target: "local",
  engine: "fio",
  op: "randread",
  size: "8MiB",
  bs: "4KiB",
  ioengine: "psync",
  duration,
});
const ddWrite = { name: "dd", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 16 };

async function writeSpec(name: string, workloads: object[], group: object = pods()) {
  const file = join(work, `${name}.yaml`);
  await writeFile(
    file,
    stringify({
      benchspec: 1,
      name,
      targets: targets(),
      hosts: { pods: group },
      defaults: { hosts: "pods" },
      workloads,
    }),
  );
  return file;
}

const env = () => ({
  BS_TEST_ACCESS_KEY: minio.accessKey,
  [SECRET_ENV]: minio.secretKey,
  NO_COLOR: "1",
  PATH: `${KUBE_BIN}:${process.env.PATH}`,
});

function benchspec(args: string[]): ResultPromise<{ reject: false; all: true; env: Record<string, string> }> {
  return execa("node", [BIN, ...args], { reject: false, all: true, env: env() });
}

const rowsOf = (dir: string) =>
  readFileSync(join(dir, "results.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResultRow);

/**
 * Waits until fio measures in a pod: a fio process of this machine (the node's processes include the
 * pods') whose environment is a pod's (the Job controller's JOB_COMPLETION_INDEX) — other test files run
 * fio here too.
 */
const fioRunning = () =>
  until(async () => {
    const found = await execa("pgrep", ["-f", "fio .*--output-format"], { reject: false });
    const inPod = found.stdout
      .split("\n")
      .filter(Boolean)
      .some((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, "utf8").includes("JOB_COMPLETION_INDEX=");
        } catch {
          return false; // gone meanwhile
        }
      });
    return inPod ? true : undefined;
  });

/** The processes of this machine that run in the pod (its hostname is in their environment). */
async function processesOfPod(pod: string): Promise<string[]> {
  const pids = (await execa("pgrep", ["-f", "."], { reject: false })).stdout.split("\n").filter(Boolean);
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOSTNAME=${pod}`);
    } catch {
      return false; // gone meanwhile
    }
  });
}

const POD_HOST = /^pod-[0-2]@bskube-node-[1-3]$/;

/** The three pods of a group are on the three nodes, one each (the default spread). */
function expectOnePerNode(names: string[]): void {
  for (const name of names) expect(name).toMatch(POD_HOST);
  expect(names.map((name) => name.split("@")[1]).sort()).toEqual([1, 2, 3].map(nodeName));
}

describe("a case from three pods", () => {
  it("runs dd, fio and S3 in every pod at once and merges exactly; no secret in the cluster", async () => {
    const file = await writeSpec("all", [
      { ...ddWrite, repeat: 2 },
      { ...fioRead("1s"), name: "fio" },
      { name: "s3", target: "store", op: "put", size: "64KiB", objects: 48, concurrency: 4 },
    ]);
    const dir = join(work, "all-run");
    const running = benchspec(["run", file, "-o", dir]);
    // What the cluster holds while the run goes on (the Job, its pods' specs and statuses).
    const seen: string[] = [];
    const sampler = setInterval(() => {
      void cluster
        .kubectl(["get", "jobs,pods", "--all-namespaces", "-o", "json"])
        .then((r) => seen.push(r.stdout));
    }, 300);
    const result = await running;
    clearInterval(sampler);
    expect(result.exitCode, result.all).toBe(0);
    expect(seen.some((json) => json.includes('"kind": "Job"') && json.includes("worker --index"))).toBe(true);
    expect(seen.filter((json) => json.includes(minio.secretKey))).toEqual([]);

    const rows = rowsOf(dir);
    expect(rows.map((row) => row.case)).toEqual([
      "dd.local.write",
      "dd.local.write",
      "fio.local.randread",
      "s3.store.put",
    ]);
    const names = rows[0]!.hosts!.map((part) => part.host).sort();
    expect(names).toHaveLength(3);
    expectOnePerNode(names);
    for (const row of rows) expectMerged(row, names);
    // What each pod did: dd's 16 blocks of 1 MiB, every pod its own 48 objects of 64 KiB.
    const part = (index: number) => rows[index]!.hosts!;
    for (const index of [0, 1]) expect(part(index).map((p) => p.bytes)).toEqual(Array(3).fill(16 * 2 ** 20));
    expect(part(3).map((p) => [p.ops, p.bytes])).toEqual(Array(3).fill([48, 48 * 64 * 1024]));
    expect(await cluster.leftBehind()).toEqual([]);
  }, 300_000);
});

describe("faults on Kubernetes", () => {
  it("a pod that finds no node of its own fails the case after startTimeout, with the scheduler's reason", async () => {
    const file = await writeSpec("unschedulable", [ddWrite], pods({ pods: NODES + 1, startTimeout: "5s" }));
    const dir = join(work, "unschedulable-run");
    const started = Date.now();
    const result = await benchspec(["run", file, "-o", dir]);
    expect(result.exitCode, result.all).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [row] = rowsOf(dir);
    expect(row!.ok).toBe(false);
    expect(row!.error).toMatch(
      /not running after 5 s: pod \S+ is not scheduled \(Unschedulable: .*anti-affinity/,
    );
    expect(await cluster.leftBehind()).toEqual([]);
  }, 120_000);

  it("an image the node cannot have fails the case at once, naming the image and why", async () => {
    const file = await writeSpec("no-image", [ddWrite], pods({ pods: 1, image: "benchspec.local/absent:1" }));
    const dir = join(work, "no-image-run");
    const started = Date.now();
    const result = await benchspec(["run", file, "-o", dir]);
    expect(result.exitCode, result.all).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(rowsOf(dir)[0]!.error).toMatch(
      /its image benchspec\.local\/absent:1 could not be had \(ErrImageNeverPull/,
    );
    expect(await cluster.leftBehind()).toEqual([]);
  }, 120_000);

  it("a pod deleted mid-case fails that case naming it; the next case runs on fresh pods", async () => {
    const file = await writeSpec("deleted", [fioRead("30s"), ddWrite]);
    const dir = join(work, "deleted-run");
    const running = benchspec(["run", file, "-o", dir]);
    await fioRunning();
    const [victim] = (
      await cluster.kubectl([
        "get",
        "pods",
        "--selector",
        "batch.kubernetes.io/job-completion-index=1",
        "-o",
        "name",
      ])
    ).stdout
      .split("\n")
      .filter(Boolean);
    expect(victim).toBeDefined();
    await cluster.kubectl(["delete", victim!, "--wait=false"]);
    const result = await running;
    expect(result.exitCode, result.all).toBe(1);
    const [fio, dd] = rowsOf(dir);
    expect(fio!.ok).toBe(false);
    expect(fio!.error).toContain(`${victim!.replace("pod/", "pod ")} was deleted`);
    expect(dd!.ok, dd!.error).toBe(true);
    expect(dd!.hosts).toHaveLength(3);
    expect(await cluster.leftBehind()).toEqual([]);
  }, 180_000);

  it("a node lost mid-case fails that case naming its pod, within the silence limit; nothing stays", async () => {
    const file = await writeSpec("lost", [fioRead("60s")]);
    const dir = join(work, "lost-run");
    const running = benchspec(["run", file, "-o", dir]);
    await fioRunning();
    const placed = await cluster.kubectl([
      ...["get", "pods", "--selector", "app.kubernetes.io/managed-by=benchspec"],
      ...["-o", 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\\n"}{end}'],
    ]);
    const lostPod = placed.stdout.split("\n").find((line) => line.endsWith(` ${nodeName(3)}`));
    expect(lostPod, placed.stdout).toBeDefined();
    const cut = Date.now();
    await cluster.link(3, "down");
    try {
      const result = await running;
      expect(result.exitCode, result.all).toBe(1);
      // The silence limit (10 s), then the Job deleted: the lost node's pod force-deleted after its grace.
      expect(Date.now() - cut).toBeLessThan(60_000);
      const [row] = rowsOf(dir);
      expect(row!.ok).toBe(false);
      expect(row!.error).toMatch(new RegExp(`pod-\\d@${nodeName(3)}.*no word from its worker`));
      expect(await cluster.leftBehind()).toEqual([]);
      // Its worker, cut off too, stopped by itself: no process of its pod is left on the machine.
      const podName = lostPod!.split(" ")[0]!;
      await until(async () => ((await processesOfPod(podName)).length === 0 ? true : undefined));
    } finally {
      await cluster.link(3, "up");
    }
  }, 180_000);

  it("Ctrl-C mid-case deletes the Job and its pods, exits 130", async () => {
    const file = await writeSpec("interrupt", [fioRead("60s")]);
    const dir = join(work, "interrupt-run");
    const running = benchspec(["run", file, "-o", dir]);
    await fioRunning();
    const interrupted = Date.now();
    running.kill("SIGINT");
    const result = await running;
    expect(result.exitCode, result.all).toBe(130);
    expect(Date.now() - interrupted).toBeLessThan(30_000);
    expect(await cluster.leftBehind()).toEqual([]);
    // Its removal is on record: clean has nothing of the cluster's to do.
    const cleaned = await benchspec(["clean", dir]);
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    expect(cleaned.stdout).not.toMatch(/Job benchspec-/);
  }, 120_000);

  it("after kill -9 the Job is on record, and clean deletes it with its pods", async () => {
    const file = await writeSpec("killed", [fioRead("60s")]);
    const dir = join(work, "killed-run");
    const running = benchspec(["run", file, "-o", dir]);
    await fioRunning();
    running.kill("SIGKILL");
    await running;
    const left = await cluster.leftBehind();
    expect(left.filter((name) => name.startsWith("job.batch/benchspec-"))).toHaveLength(1);
    // On record before it was created, and again with the namespace the context put it in.
    const job = left.find((name) => name.startsWith("job.batch/"))!.replace("job.batch/", "");
    const records = readFileSync(join(dir, "leftovers.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; record?: { job: string; namespace?: string } })
      .filter((l) => l.kind === "transport");
    expect(records.map((l) => l.record)).toEqual([{ job }, { job, namespace: "default" }]);
    const cleaned = await benchspec(["clean", dir]);
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    expect(cleaned.stdout).toContain(
      left.find((name) => name.startsWith("job.batch/"))!.replace("job.batch/", "Job "),
    );
    expect(await cluster.leftBehind()).toEqual([]);
  }, 120_000);
});

describe("compile --target kubernetes", () => {
  it("its manifests, applied by its runner to the real cluster, give the rows run gives, merged alike", async () => {
    const workloads = [
      { ...ddWrite, repeat: 2 },
      { ...fioRead("1s"), name: "fio" },
      { name: "s3", target: "store", op: "put", size: "64KiB", objects: 24, concurrency: 2 },
    ];
    const file = await writeSpec("compiled", workloads);
    const out = join(work, "compiled");
    const compiled = await benchspec(["compile", file, "--target", "kubernetes", "-o", out]);
    expect(compiled.exitCode, compiled.all).toBe(0);
    expect(compiled.all).toContain("kubernetes/pods.sh OUT");
    expect(compiled.all).not.toContain("left out");
    const check = await execa("shellcheck", ["-S", "style", join(out, "kubernetes", "pods.sh")], {
      reject: false,
    });
    expect(check.stdout).toBe("");

    const rows = join(work, "compiled-rows");
    const running = execa("bash", [join(out, "kubernetes", "pods.sh"), rows], {
      reject: false,
      all: true,
      env: { ...env(), BENCHSPEC_COMMAND: `node ${BIN}`, BENCHSPEC_START_LEAD: "20", BENCHSPEC_PERIOD: "4" },
    });
    // The manifests hold no secret: the pods take the targets' variables from the runner's Secret.
    const seen: string[] = [];
    const sampler = setInterval(() => {
      void cluster.kubectl(["get", "jobs,pods,configmaps", "-o", "json"]).then((r) => seen.push(r.stdout));
    }, 500);
    const result = await running;
    clearInterval(sampler);
    // On failure, what each pod's script said (its log) beside the runner's words.
    const said = [0, 1, 2].map((k) => {
      try {
        return `pod-${k}/log:\n${readFileSync(join(rows, `pod-${k}`, "log"), "utf8")}`;
      } catch {
        return `pod-${k}: no log`;
      }
    });
    expect(result.exitCode, [result.all, ...said].join("\n")).toBe(0);
    expect(seen.some((json) => json.includes("benchspec-compiled-pods"))).toBe(true);
    expect(seen.filter((json) => json.includes(minio.secretKey))).toEqual([]);
    expect(await cluster.leftBehind()).toEqual([]);

    // Each pod's own rows, and the merged run: per-pod parts, sums, percentiles of the pooled bins.
    const merged = mergedCopies(
      join(rows, "merged"),
      [0, 1, 2].map((k) => join(rows, `pod-${k}`, "results.ndjson")),
    );
    for (const { row, parts } of merged) {
      // Each copy stamps its own start at its slot's instant; fio's start includes its process starting,
      // in three pods on two cores under the rest of the suite (0.1 s exceeded, once): 0.25 s here.
      expectMergedCopies(
        row,
        parts,
        parts.map((part) => part.host!),
        0.25,
      );
      expectOnePerNode(parts.map((part) => part.host!));
    }
    // The same cases and repetitions as `run` gives, each a row of the three pods.
    const ran = join(work, "compiled-run");
    expect((await benchspec(["run", file, "-o", ran])).exitCode).toBe(0);
    const direct = rowsOf(ran);
    const shape = (list: ResultRow[]) => list.map((row) => [row.case, row.repetition, row.hosts?.length]);
    expect(shape(merged.map(({ row }) => row))).toEqual(shape(direct));
    for (const [i, { row }] of merged.entries())
      if (row.engine !== "fio") expect(row.bytes, row.case).toBe(direct[i]!.bytes);
  }, 300_000);
});
