/**
 * `transport: kubernetes` in the language (its keys checked where they are written), the Job it becomes
 * (compile/kubernetes-job.ts), and how a pod's status is told in words (hosts/kubernetes.ts). The real
 * cluster's tests are in test/integration/kubernetes.test.ts.
 */
import { describe, expect, it } from "vitest";
import { renderPlan } from "../../src/cli/plan.js";
import { kubernetesJob } from "../../src/compile/kubernetes-job.js";
import { podTrouble } from "../../src/hosts/kubernetes.js";
import type { HostGroup } from "../../src/spec/schema.js";
import { join } from "node:path";
import { loadSpec } from "../../src/engines/language.js";
import { diagnosticsOf, fsSpec, planOf, SPECS_DIR } from "../support/spec.js";

const group = { transport: "kubernetes", pods: 3, image: "registry.example/benchspec:0.1.0" };
const withGroup = (extra: object) =>
  fsSpec([{ name: "w", engine: "dd", op: "write", hosts: "pods" }], {
    hosts: { pods: { ...group, ...extra } },
  });
const errors = (extra: object) => diagnosticsOf(withGroup(extra)).filter((d) => d.severity === "error");

describe("a kubernetes host group", () => {
  it("has no hosts for --hosts to name: refused, saying how many pods to ask for instead", async () => {
    const { diagnostics, plan } = await loadSpec(join(SPECS_DIR, "object-upload-download.yaml"), {
      hosts: ["pods=a,b"],
    });
    expect(plan).toBeUndefined();
    expect(diagnostics.map((d) => d.message)).toEqual([
      "--hosts pods=…: host group pods (transport kubernetes) has no list of hosts to name: its transport places them; say how many with --set hosts.pods.pods=N",
    ]);
  });

  it("names its pods by index until their workers say where they run", () => {
    const plan = planOf(withGroup({}));
    expect(renderPlan(plan)).toContain("pods: pod 0, pod 1, pod 2 (kubernetes)");
  });

  it("takes the keys a Kubernetes user writes, and refuses what the API server would, where it is written", () => {
    expect(
      errors({
        namespace: "bench",
        context: "lab",
        spread: "zone",
        nodeSelector: { "node.kubernetes.io/instance-type": "m5.large" },
        tolerations: [{ key: "dedicated", operator: "Equal", value: "bench", effect: "NoSchedule" }],
        resources: { requests: { cpu: 2, memory: "4Gi" }, limits: { memory: "4Gi" } },
        serviceAccount: "bench",
        volumes: [
          { path: "/data", storageClass: "fast", size: "10GiB" },
          { device: "/dev/bench", claim: "raw" },
          { path: "/shared", claim: "shared", readOnly: true },
          { path: "/scratch", hostPath: "/mnt/nvme0" },
        ],
        startTimeout: "5m",
      }),
    ).toEqual([]);
    expect(errors({ namespace: "Bench_NS" })[0]).toMatchObject({
      code: "invalid-value",
      path: ["hosts", "pods", "namespace"],
      message: expect.stringContaining("namespace"),
    });
    expect(errors({ resources: { limits: { memory: "4 GB" } } })[0]).toMatchObject({
      path: ["hosts", "pods", "resources", "limits", "memory"],
      message: expect.stringContaining("Kubernetes quantity"),
    });
    const volume = (v: object) => errors({ volumes: [v] }).map((d) => [d.path.join("."), d.message]);
    expect(volume({ path: "/a", device: "/dev/b", claim: "c" })).toEqual([
      ["hosts.pods.volumes.0", expect.stringContaining("either a path")],
    ]);
    expect(volume({ path: "/a", claim: "c", hostPath: "/d" })).toEqual([
      ["hosts.pods.volumes.0", expect.stringContaining("one of claim")],
    ]);
    expect(volume({ path: "/a", storageClass: "fast" })).toEqual([
      ["hosts.pods.volumes.0", expect.stringContaining("storageClass and size go together")],
    ]);
    expect(volume({ device: "/dev/b", hostPath: "/dev/sdb" })).toEqual([
      ["hosts.pods.volumes.0", expect.stringContaining("not from a hostPath")],
    ]);
    expect(volume({ path: "data", claim: "c" })[0]).toEqual([
      "hosts.pods.volumes.0.path",
      expect.any(String),
    ]);
  });
});

type KubernetesGroup = Extract<HostGroup, { transport: "kubernetes" }>;
const jobOf = (extra: object) => {
  const plan = planOf(withGroup(extra));
  const job = kubernetesJob(plan.hosts.pods as KubernetesGroup, {
    name: "benchspec-x",
    command: ["sh", "-c", "exec benchspec worker"],
    stdin: true,
  }) as { spec: { template: { spec: Record<string, unknown> } } };
  return job.spec.template.spec as {
    affinity?: object;
    topologySpreadConstraints?: object[];
    automountServiceAccountToken?: boolean;
    serviceAccountName?: string;
    containers: Record<string, unknown>[];
    volumes?: object[];
  };
};

describe("the Job of a kubernetes group", () => {
  it("puts one pod per node by default, spreads over zones or leaves placement to the scheduler", () => {
    const node = jobOf({});
    expect(node.affinity).toEqual({
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { "benchspec.dev/job": "benchspec-x" } },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    });
    expect(jobOf({ spread: "zone" }).topologySpreadConstraints).toEqual([
      expect.objectContaining({
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "DoNotSchedule",
      }),
    ]);
    const any = jobOf({ spread: "any" });
    expect(any.affinity).toBeUndefined();
    expect(any.topologySpreadConstraints).toBeUndefined();
  });

  it("mounts each volume as written: a PVC, a new claim per pod (a raw block one for a device), a node's directory", () => {
    const spec = jobOf({
      volumes: [
        { path: "/data", storageClass: "fast", size: "10GiB" },
        { device: "/dev/bench", storageClass: "fast", size: "1GiB" },
        { path: "/shared", claim: "shared", readOnly: true },
        { path: "/scratch", hostPath: "/mnt/nvme0" },
      ],
    });
    expect(spec.volumes).toEqual([
      {
        name: "storage-0",
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { "app.kubernetes.io/managed-by": "benchspec" } },
            spec: {
              accessModes: ["ReadWriteOnce"],
              storageClassName: "fast",
              resources: { requests: { storage: "10737418240" } },
            },
          },
        },
      },
      expect.objectContaining({
        name: "storage-1",
        ephemeral: expect.objectContaining({
          volumeClaimTemplate: expect.objectContaining({
            spec: expect.objectContaining({ volumeMode: "Block" }),
          }),
        }),
      }),
      { name: "storage-2", persistentVolumeClaim: { claimName: "shared", readOnly: true } },
      { name: "storage-3", hostPath: { path: "/mnt/nvme0", type: "Directory" } },
    ]);
    const [container] = spec.containers;
    expect(container!.volumeMounts).toEqual([
      { name: "storage-0", mountPath: "/data" },
      { name: "storage-2", mountPath: "/shared", readOnly: true },
      { name: "storage-3", mountPath: "/scratch" },
    ]);
    expect(container!.volumeDevices).toEqual([{ name: "storage-1", devicePath: "/dev/bench" }]);
  });

  it("mounts no service account token unless one is named; the worker reads the stdin kubectl attach holds", () => {
    expect(jobOf({}).automountServiceAccountToken).toBe(false);
    const named = jobOf({ serviceAccount: "bench" });
    expect(named.serviceAccountName).toBe("bench");
    expect(named.automountServiceAccountToken).toBeUndefined();
    expect(jobOf({}).containers[0]).toMatchObject({ stdin: true, stdinOnce: true });
  });
});

describe("a pod's trouble in words", () => {
  const pod = (status: object, metadata: object = {}) => ({
    metadata: { name: "benchspec-x-1-abcde", ...metadata },
    spec: { nodeName: "n1" },
    status,
  });

  it("names what a pod does not come back from", () => {
    expect(
      podTrouble(
        pod({ phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." }),
        false,
      ).fatal,
    ).toBe("pod benchspec-x-1-abcde ended: Evicted: The node was low on resource: memory.");
    expect(
      podTrouble(
        pod({
          phase: "Failed",
          containerStatuses: [{ state: { terminated: { reason: "OOMKilled", exitCode: 137 } } }],
        }),
        false,
      ).fatal,
    ).toBe("pod benchspec-x-1-abcde ended: its container ended (OOMKilled 137)");
    expect(
      podTrouble(
        pod({
          phase: "Pending",
          containerStatuses: [
            { state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "s" not found' } } },
          ],
        }),
        false,
      ).fatal,
    ).toBe(
      'pod benchspec-x-1-abcde: its container could not start (CreateContainerConfigError: secret "s" not found)',
    );
    expect(
      podTrouble(pod({ phase: "Running" }, { deletionTimestamp: "2026-11-28T10:00:00Z" }), false).fatal,
    ).toBe("pod benchspec-x-1-abcde was deleted");
    expect(podTrouble(pod({ phase: "Running" }), true).fatal).toBe("pod benchspec-x-1-abcde was deleted");
  });

  it("notes what a pod waits for, without failing it", () => {
    const pending = podTrouble(
      pod({
        phase: "Pending",
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/3 nodes are available",
          },
        ],
      }),
      false,
    );
    expect(pending).toEqual({
      note: "pod benchspec-x-1-abcde is not scheduled (Unschedulable: 0/3 nodes are available)",
    });
    expect(
      podTrouble(
        pod({
          phase: "Pending",
          containerStatuses: [{ state: { waiting: { reason: "ContainerCreating" } } }],
        }),
        false,
      ),
    ).toEqual({ note: "pod benchspec-x-1-abcde is waiting (ContainerCreating)" });
  });
});
