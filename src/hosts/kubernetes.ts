/**
 * Hosts that are pods: an Indexed Job (compile/kubernetes-job.ts) whose pods each run `benchspec worker` as
 * their one process, reading a stdin that `kubectl attach` holds — the worker protocol goes through the API
 * server, as kubectl's own streams do, and nothing listens on a port. The user's kubectl, kubeconfig and
 * context reach the cluster (as ssh uses theirs). The Job is put on the run's record before it is created
 * (`clean` deletes it after a kill) and deleted when the workers are done; a pod whose attach ends takes
 * its worker with it (stdinOnce: its stdin closes), and the Job's pods end by themselves then.
 *
 * Every fault is bounded and named from the pods' own status, watched for the Job's length: an image that
 * cannot be pulled, a container that cannot be created, a pod that is not running within `startTimeout`
 * (with the scheduler's reason when it is unschedulable), a pod evicted, failed or deleted mid-case. A
 * pod on a node that was lost (its network cut, its kubelet gone) says nothing: its worker is dead to the
 * coordinator after the protocol's silence limit, and that worker, hearing nothing either, stops by itself.
 */
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import {
  CONTAINER,
  INDEX_ANNOTATION,
  JOB_LABEL,
  kubernetesJob,
  TERMINATION_GRACE_S,
} from "../compile/kubernetes-job.js";
import { resolveEnvRefs } from "../spec/strings.js";
import type { GroupOf, HostTransport } from "./types.js";
import { startWorkerProcess, type WorkerProcess } from "./worker-process.js";

type Group = GroupOf<"kubernetes">;

const DEFAULT_START_TIMEOUT_S = 120;
/** How long a finished Job stays if benchspec could not delete it (killed): Kubernetes removes it then. */
const FINISHED_JOB_TTL_S = 3_600;
const KUBECTL_TIMEOUT_MS = 60_000;
/**
 * A pod still there this long after its deletion began (its grace period and a margin) is on a node that
 * cannot say it stopped — lost, as its silence told — and is force-deleted, as an administrator would.
 */
const STRANDED_AFTER_S = TERMINATION_GRACE_S + 15;
/** After an attach ends, how long the pod's status may take to say why (the watch names it first). */
const WHY_WAIT_MS = 3_000;

/** What the run records of a Job it created: enough for `clean` to delete it with the group's kubectl. */
interface JobRecord {
  job: string;
  namespace?: string;
}

/** kubectl's arguments that pick the cluster and namespace: the user's kubeconfig and context. */
function kubectlArgs(group: Group, env: NodeJS.ProcessEnv): string[] {
  return [
    ...(group.kubeconfig !== undefined ? ["--kubeconfig", resolveEnvRefs(group.kubeconfig, env)] : []),
    ...(group.context !== undefined ? ["--context", group.context] : []),
    ...(group.namespace !== undefined ? ["--namespace", group.namespace] : []),
  ];
}

async function kubectl(group: Group, env: NodeJS.ProcessEnv, args: string[], input?: string) {
  const result = await execa("kubectl", [...kubectlArgs(group, env), ...args], {
    env,
    input,
    stdin: input === undefined ? "ignore" : "pipe",
    reject: false,
    timeout: KUBECTL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0)
    throw new Error(
      (result as { code?: string }).code === "ENOENT"
        ? "kubectl is not installed here (the kubernetes transport reaches the cluster with it)"
        : `kubectl ${args[0]}: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`,
    );
  return String(result.stdout);
}

async function deleteJob(group: Group, env: NodeJS.ProcessEnv, record: JobRecord): Promise<boolean> {
  const scoped = { ...group, namespace: record.namespace };
  // Foreground: the Job is gone only once its pods are, so nothing of it outlives the call.
  const deleted = await kubectl(scoped, env, [
    ...["delete", "job", record.job, "--cascade=foreground", "--ignore-not-found"],
    ...["--wait=true", `--timeout=${STRANDED_AFTER_S}s`],
  ]).catch((error: Error) => error);
  if (!(deleted instanceof Error)) return deleted.trim() !== "";
  if (!/timed out/.test(deleted.message)) throw deleted;
  // Its pods on a lost node never confirm their end: their workers stopped by themselves (silence), and
  // their containers go when the node comes back and finds the pods gone.
  await kubectl(scoped, env, [
    ...["delete", "pods", "--selector", `${JOB_LABEL}=${record.job}`],
    ...["--grace-period=0", "--force", "--ignore-not-found", "--wait=false"],
  ]);
  await kubectl(scoped, env, [
    ...["wait", "--for=delete", `job/${record.job}`],
    `--timeout=${KUBECTL_TIMEOUT_MS / 1000}s`,
  ]);
  return true;
}

/** The parts of a pod's status that say where it is and what is wrong with it. */
interface Pod {
  metadata: { name: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: {
      image?: string;
      state?: {
        waiting?: { reason?: string; message?: string };
        terminated?: { reason?: string; message?: string; exitCode?: number };
      };
    }[];
  };
}

/** Waiting reasons a pod does not come back from by itself. */
const FATAL_WAITING = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

/** What is wrong with the pod for good, or (note) what it waits for; both in words. */
export function podTrouble(pod: Pod, deleted: boolean): { fatal?: string; note?: string } {
  const name = `pod ${pod.metadata.name}`;
  if (deleted || pod.metadata.deletionTimestamp !== undefined) return { fatal: `${name} was deleted` };
  const container = pod.status.containerStatuses?.[0];
  const waiting = container?.state?.waiting;
  const terminated = container?.state?.terminated;
  const { phase } = pod.status;
  if (phase === "Failed" || phase === "Succeeded") {
    const why = [
      pod.status.reason,
      pod.status.message,
      terminated && `its container ended (${terminated.reason ?? "exit"} ${terminated.exitCode ?? "?"})`,
      terminated?.message,
    ].filter((part) => part);
    return { fatal: `${name} ended: ${why.join(": ") || phase}` };
  }
  if (waiting?.reason && FATAL_WAITING.has(waiting.reason))
    return {
      fatal: `${name}: ${waiting.reason.startsWith("CreateContainer") || waiting.reason === "RunContainerError" ? "its container could not start" : `its image ${container?.image ?? ""} could not be had`} (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""})`,
    };
  const unscheduled = pod.status.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  if (unscheduled)
    return {
      note: `${name} is not scheduled (${unscheduled.reason ?? "Pending"}: ${unscheduled.message ?? ""})`,
    };
  if (waiting?.reason) return { note: `${name} is waiting (${waiting.reason})` };
  return {
    note: `${name} is ${phase ?? "pending"}${pod.spec.nodeName ? ` on node ${pod.spec.nodeName}` : ""}`,
  };
}

interface PodSlot {
  attach?: WorkerProcess;
  /** Lines sent before the attach began: the first of them is the hello. */
  pending: string[];
  note: string;
  ended: boolean;
}

export const kubernetesTransport: HostTransport<"kubernetes"> = {
  // The pods are Kubernetes' to place: until their workers say hello they are known by their index.
  hostNames: (group) => Array.from({ length: group.pods }, (_, index) => `pod ${index}`),
  namedByWorkers: true,
  startupLimitMs: (group) => (group.startTimeout ?? DEFAULT_START_TIMEOUT_S) * 1000 + 30_000,
  start(group, command, events, env) {
    const record: JobRecord = {
      job: `benchspec-${randomBytes(5).toString("hex")}`,
      ...(group.namespace !== undefined && { namespace: group.namespace }),
    };
    const what = `Job ${record.job}${group.namespace ? ` in namespace ${group.namespace}` : ""}`;
    const slots: PodSlot[] = Array.from({ length: group.pods }, () => ({
      pending: [],
      note: "its pod is not created yet",
      ended: false,
    }));
    let stopping = false;
    let watch: WorkerProcess | undefined;
    const fail = (index: number, why: string) => {
      const slot = slots[index]!;
      if (slot.ended || stopping) return;
      slot.ended = true;
      events.exit(index, why);
    };
    const attach = (index: number, pod: string) => {
      const slot = slots[index]!;
      slot.attach = startWorkerProcess(
        "kubectl",
        [...kubectlArgs(group, env), "attach", pod, "--container", CONTAINER, "--stdin", "--quiet"],
        (line) => events.line(line, index),
        (why) => {
          // The pod's status says why better than kubectl does; it has a moment to.
          if (!stopping)
            setTimeout(() => fail(index, `its kubectl attach ended (${why})`), WHY_WAIT_MS).unref();
        },
        env,
      );
      for (const line of slot.pending.splice(0)) slot.attach.write(line);
    };
    const onPod = (type: string, pod: Pod) => {
      const index = Number(pod.metadata.annotations?.[INDEX_ANNOTATION]);
      const slot = slots[index];
      if (!slot || slot.ended) return;
      const trouble = podTrouble(pod, type === "DELETED");
      if (trouble.fatal) return fail(index, trouble.fatal);
      slot.note = trouble.note ?? slot.note;
      if (pod.status.phase === "Running" && !slot.attach) attach(index, pod.metadata.name);
    };
    const watchPods = () => {
      watch = startWorkerProcess(
        "kubectl",
        [
          ...kubectlArgs(group, env),
          ...["get", "pods", "--selector", `${JOB_LABEL}=${record.job}`],
          ...["--watch", "--output-watch-events", "--output", "json"],
        ],
        (line) => {
          try {
            const event = JSON.parse(line) as { type: string; object: Pod };
            if (event.object?.metadata) onPod(event.type, event.object);
          } catch {
            // Not an event: kubectl's own words go to stderr.
          }
        },
        // The API server ends a watch after a while: it is taken up again for as long as the Job runs.
        () => {
          if (!stopping) setTimeout(watchPods, 1_000).unref();
        },
        env,
      );
    };

    events.created({ what, record });
    void (async () => {
      const job = kubernetesJob(group, {
        name: record.job,
        command: [
          "sh",
          "-c",
          `exec ${command} worker --index "$JOB_COMPLETION_INDEX" --name "pod-$JOB_COMPLETION_INDEX@$NODE_NAME"`,
        ],
        stdin: true,
        ttlSeconds: FINISHED_JOB_TTL_S,
      });
      try {
        const namespace = await kubectl(
          group,
          env,
          ["create", "--filename", "-", "--output", "jsonpath={.metadata.namespace}"],
          JSON.stringify(job),
        );
        // Where the context put it, on record too: `clean` finds it even if the context's namespace changes.
        if (record.namespace === undefined && namespace.trim() !== "")
          events.created({ what, record: { ...record, namespace: namespace.trim() } });
      } catch (error) {
        for (let index = 0; index < group.pods; index++)
          fail(index, `its Job could not be created: ${(error as Error).message}`);
        return;
      }
      if (stopping) return;
      watchPods();
      const limit = (group.startTimeout ?? DEFAULT_START_TIMEOUT_S) * 1000;
      setTimeout(() => {
        slots.forEach((slot, index) => {
          if (!slot.attach) fail(index, `not running after ${limit / 1000} s: ${slot.note}`);
        });
      }, limit).unref();
    })();

    return {
      write(index, line) {
        const slot = slots[index]!;
        if (slot.attach) slot.attach.write(line);
        else slot.pending.push(line);
      },
      stderr: (index) => [slots[index]!.attach?.stderr(), slots[index]!.note].filter((s) => s).join("\n"),
      async stop(graceMs) {
        stopping = true;
        await Promise.all(slots.map((slot) => slot.attach?.stop(graceMs)));
        await watch?.stop(0);
        try {
          await deleteJob(group, env, record);
          events.removed({ what, record });
        } catch {
          // Still on record: `benchspec clean` deletes it (and Kubernetes does, FINISHED_JOB_TTL_S after it ends).
        }
      },
    };
  },
  async removeLeftover(group, record, env) {
    return deleteJob(group, env, record as JobRecord);
  },
  // A worker's scratch directory was in its pod, gone with the Job (its own leftover).
  removeDirectory: async () => {},
};
