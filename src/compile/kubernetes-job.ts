/**
 * The Indexed Job that runs a `transport: kubernetes` group's pods, from the group's keys: its pods' count,
 * image, placement (spread, node selector, tolerations), resources, service account and volumes. The run's
 * transport (hosts/kubernetes.ts) starts workers with it; compile's kubernetes target runs the script with it.
 * One worker per pod, no retries (a pod that fails is a host lost, not replaced: a new pod would be a worker
 * nobody talks to), nothing of the run's secrets in it.
 */
import type { HostGroup } from "../spec/schema.js";

type KubernetesGroup = Extract<HostGroup, { transport: "kubernetes" }>;

/** The label every object benchspec makes carries, and the one that picks one Job's pods. */
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "benchspec" } as const;
export const JOB_LABEL = "benchspec.dev/job";
/** Set by the Job controller on each pod of an Indexed Job. */
export const INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
export const CONTAINER = "benchspec";
/** How long a pod's worker has to end when its pod is deleted (it ends at once when its stdin closes). */
export const TERMINATION_GRACE_S = 10;

export interface JobOptions {
  name: string;
  /** The container's command (its image's entrypoint is not used). */
  command: string[];
  /** Whether the container reads a stdin that the first `kubectl attach` holds (the run's workers). */
  stdin: boolean;
  /** The container's environment besides NODE_NAME, and the Secrets it is taken from whole. */
  env?: object[];
  envFrom?: object[];
  /** Labels of the Job and its pods besides the managed-by and job ones. */
  labels?: Record<string, string>;
  /** Volumes besides the group's (compile's script), with their mounts. */
  extraVolumes?: { volume: object; mount: object }[];
  /** Seconds a finished Job stays before Kubernetes removes it (and its pods). */
  ttlSeconds?: number;
}

export function kubernetesJob(group: KubernetesGroup, options: JobOptions): object {
  const labels = { ...MANAGED_BY, [JOB_LABEL]: options.name, ...options.labels };
  const selector = { matchLabels: { [JOB_LABEL]: options.name } };
  const spread = group.spread ?? "node";
  const volumes = (group.volumes ?? []).map((volume, i) => ({ ...volume, name: `storage-${i}` }));
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: options.name,
      ...(group.namespace !== undefined && { namespace: group.namespace }),
      labels,
    },
    spec: {
      completionMode: "Indexed",
      completions: group.pods,
      parallelism: group.pods,
      backoffLimitPerIndex: 0,
      podReplacementPolicy: "Failed",
      ...(options.ttlSeconds !== undefined && { ttlSecondsAfterFinished: options.ttlSeconds }),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: TERMINATION_GRACE_S,
          enableServiceLinks: false,
          ...(group.serviceAccount !== undefined
            ? { serviceAccountName: group.serviceAccount }
            : { automountServiceAccountToken: false }),
          ...(group.nodeSelector !== undefined && { nodeSelector: group.nodeSelector }),
          ...(group.tolerations !== undefined && { tolerations: group.tolerations }),
          ...(spread === "node" && {
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { labelSelector: selector, topologyKey: "kubernetes.io/hostname" },
                ],
              },
            },
          }),
          ...(spread === "zone" && {
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: "topology.kubernetes.io/zone",
                whenUnsatisfiable: "DoNotSchedule",
                labelSelector: selector,
              },
            ],
          }),
          containers: [
            {
              name: CONTAINER,
              image: group.image,
              ...(group.imagePullPolicy !== undefined && { imagePullPolicy: group.imagePullPolicy }),
              command: options.command,
              ...(options.stdin && { stdin: true, stdinOnce: true }),
              env: [
                { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                ...(options.env ?? []),
              ],
              ...(options.envFrom !== undefined && { envFrom: options.envFrom }),
              ...(group.resources !== undefined && { resources: group.resources }),
              ...mounts(volumes, options.extraVolumes ?? []),
            },
          ],
          ...((volumes.length > 0 || options.extraVolumes?.length) && {
            volumes: [...volumes.map(podVolume), ...(options.extraVolumes ?? []).map((v) => v.volume)],
          }),
        },
      },
    },
  };
}

type NamedVolume = NonNullable<KubernetesGroup["volumes"]>[number] & { name: string };

function mounts(volumes: readonly NamedVolume[], extra: readonly { mount: object }[]) {
  const mounted = volumes.filter((v) => v.path !== undefined);
  const devices = volumes.filter((v) => v.device !== undefined);
  const volumeMounts = [
    ...mounted.map((v) => ({ name: v.name, mountPath: v.path, ...(v.readOnly && { readOnly: true }) })),
    ...extra.map((v) => v.mount),
  ];
  return {
    ...(volumeMounts.length > 0 && { volumeMounts }),
    ...(devices.length > 0 && {
      volumeDevices: devices.map((v) => ({ name: v.name, devicePath: v.device })),
    }),
  };
}

function podVolume(volume: NamedVolume): object {
  if (volume.hostPath !== undefined)
    return { name: volume.name, hostPath: { path: volume.hostPath, type: "Directory" } };
  if (volume.claim !== undefined)
    return {
      name: volume.name,
      persistentVolumeClaim: { claimName: volume.claim, ...(volume.readOnly && { readOnly: true }) },
    };
  return {
    name: volume.name,
    ephemeral: {
      volumeClaimTemplate: {
        metadata: { labels: MANAGED_BY },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: volume.storageClass,
          ...(volume.device !== undefined && { volumeMode: "Block" }),
          resources: { requests: { storage: String(volume.size) } },
        },
      },
    },
  };
}
