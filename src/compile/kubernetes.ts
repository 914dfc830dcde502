/**
 * The `kubernetes` compile target: per host group of `transport: kubernetes` the plan's cases run on,
 * manifests another runner applies without benchspec, and a runner script that applies them with kubectl:
 *
 *   kubernetes/<group>.yaml   a ConfigMap (`benchspec.dev/part: script`) with the compiled benchspec.sh and
 *                             the files it reads (fio jobfiles), the start instant's `epoch` (empty: set it)
 *                             and `period`; and the group's Indexed Job (compile/kubernetes-job.ts, part
 *                             `job`) whose N pods run the script as copies 0…N-1, each repetition started at
 *                             epoch + K × period (no file system is shared between pods), each pod's rows on
 *                             its standard output, its log lines marked `# `, its time series `@ `
 *                             The variables the group's targets refer to (`${env:NAME}`) come from the Secret
 *                             `<name>-env`, made by the runner from its own environment and deleted after
 *   kubernetes/<group>.sh OUT creates the ConfigMap and the Secret, sets the epoch a lead ahead, creates the
 *                             Job, waits for it, splits each pod's log into OUT/pod-K/{results,timeseries}.ndjson
 *                             and log, deletes all three, and merges with `benchspec merge` where benchspec runs
 */
import { stringify } from "yaml";
import type { Artifact, CompileContext } from "../emit/types.js";
import { headerLines, ShellScriptWriter } from "../emit/writer.js";
import { shellWord } from "../emit/shell-words.js";
import { shellAsset } from "../emit/shell-assets.js";
import { targetsOf, type Plan } from "../plan/types.js";
import { BenchspecError } from "../platform/errors.js";
import { RUN_FILES } from "../results/run-dir.js";
import type { HostGroup } from "../spec/schema.js";
import type { BatchCompiler } from "./batch.js";
import { JOB_LABEL, kubernetesJob, MANAGED_BY } from "./kubernetes-job.js";
import { SHELL_SCRIPT_PATH } from "./shell/script.js";
import { envRefsIn } from "../spec/strings.js";

type KubernetesGroup = Extract<HostGroup, { transport: "kubernetes" }>;

export const kubernetesBatch: BatchCompiler = {
  path: (group) => `kubernetes/${group}.yaml`,
  run: (group) =>
    `kubernetes/${group}.sh OUT (kubectl applies kubernetes/${group}.yaml, collects the pods' rows, merges them)`,
  runs: "shell",
  files: kubernetesFiles,
};

/** Where the ConfigMap's files are in each pod. */
const MOUNT = "/benchspec";
/** A ConfigMap holds at most 1 MiB; what goes beyond is refused here, not by the API server. */
const CONFIGMAP_LIMIT = 1_000_000;
/** The slot period when BENCHSPEC_PERIOD does not say: longer than most repetitions and their setup. */
export const DEFAULT_PERIOD_S = 60;
const PART = "benchspec.dev/part";

/** An object name from the spec's names: a DNS label (lower case, digits, `-`, at most 63). */
const objectName = (plan: Plan, group: string) =>
  `benchspec-${plan.name}-${group}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 63)
    .replace(/-+$/, "");

function kubernetesFiles(
  plan: Plan,
  name: string,
  _copies: unknown,
  ctx: CompileContext,
  compiled: ReadonlyMap<string, Artifact>,
): Artifact[] {
  const group = plan.hosts[name] as KubernetesGroup;
  const object = objectName(plan, name);
  const script = compiled.get(SHELL_SCRIPT_PATH)?.content;
  if (script === undefined)
    throw new BenchspecError("internal", `kubernetes: no ${SHELL_SCRIPT_PATH} was compiled`);
  // The script and every compiled file it names (its fio jobfiles), under keys a ConfigMap takes.
  const files = [...compiled.values()].filter(
    (a) => a.path === SHELL_SCRIPT_PATH || (a.path !== RUN_FILES.plan.name && script.includes(a.path)),
  );
  const key = (path: string) => path.replaceAll("/", "_");
  const data: Record<string, string> = { epoch: "", period: String(DEFAULT_PERIOD_S) };
  for (const file of files) data[key(file.path)] = file.content;
  const size = Object.values(data).reduce((sum, value) => sum + Buffer.byteLength(value), 0);
  if (size > CONFIGMAP_LIMIT)
    throw new BenchspecError(
      "usage",
      `host group ${name}: the compiled script and its files are ${size} bytes, more than a ConfigMap holds (1 MiB); compile fewer workloads for it (--only)`,
    );
  const labels = (part: string) => ({ ...MANAGED_BY, [JOB_LABEL]: object, [PART]: part });
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: object,
      ...(group.namespace !== undefined && { namespace: group.namespace }),
      labels: labels("script"),
    },
    data,
  };
  // The variables the group's cases' targets refer to: the script reads them, the pods get them from a Secret.
  const secrets = [
    ...new Set(
      plan.cases
        .filter((c) => c.params.hosts === name)
        .flatMap((c) => targetsOf(c))
        .flatMap((target) => envRefsIn(plan.targets[target], target).map((ref) => ref.name)),
    ),
  ].sort();
  const fromConfigMap = (variable: string, field: string) => ({
    name: variable,
    valueFrom: { configMapKeyRef: { name: object, key: field } },
  });
  const job = kubernetesJob(group, {
    name: object,
    command: [
      "bash",
      "-c",
      shellAsset(new URL("./kubernetes-pod.sh", import.meta.url)),
      "bs-pod",
      `${MOUNT}/${SHELL_SCRIPT_PATH}`,
    ],
    stdin: false,
    env: [
      { name: "BENCHSPEC_GROUP", value: name },
      { name: "BENCHSPEC_HOST_COUNT", value: String(group.pods) },
      fromConfigMap("BENCHSPEC_EPOCH", "epoch"),
      fromConfigMap("BENCHSPEC_PERIOD", "period"),
      {
        name: "BENCHSPEC_JOB_UID",
        valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" } },
      },
    ],
    ...(secrets.length > 0 && { envFrom: [{ secretRef: { name: `${object}-env` } }] }),
    labels: labels("job"),
    extraVolumes: [
      {
        volume: {
          name: "benchspec",
          configMap: {
            name: object,
            items: files.map((file) => ({ key: key(file.path), path: file.path })),
          },
        },
        mount: { name: "benchspec", mountPath: MOUNT, readOnly: true },
      },
    ],
  });
  const manifests = [configMap, job]
    .map((doc) => stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join("---\n");
  const header = headerLines(ctx, "Kubernetes manifests")
    .map((line) => `# ${line}\n`)
    .join("");
  return [
    {
      path: kubernetesBatch.path(name),
      content: `${header}# Create the ConfigMap (part=script), set its epoch, then the Job (part=job): kubernetes/${name}.sh does.\n${manifests}`,
    },
    { path: `kubernetes/${name}.sh`, content: runner(plan, name, group, object, secrets, ctx) },
  ];
}

function runner(
  plan: Plan,
  name: string,
  group: KubernetesGroup,
  object: string,
  secrets: readonly string[],
  ctx: CompileContext,
): string {
  const w = new ShellScriptWriter(ctx);
  w.comment(
    `The cases of spec ${plan.name} on host group ${name}: ${SHELL_SCRIPT_PATH} in ${group.pods} pods at once (kubernetes/${name}.yaml).`,
  );
  w.comment(`Usage: kubernetes/${name}.sh OUT   (kubectl here, reaching the group's cluster)`);
  w.comment(
    `  BENCHSPEC_PERIOD  seconds from one repetition's start to the next (default ${DEFAULT_PERIOD_S}): longer than`,
  );
  w.comment(`                    any repetition and what precedes it`);
  w.comment(
    `  BENCHSPEC_START_LEAD  seconds from the Job's creation to the first start (default 60): time for the`,
  );
  w.comment(`                    pods to be scheduled, get their image and start`);
  if (secrets.length > 0)
    w.comment(
      `  ${secrets.join(", ")}: the targets' variables, given to the pods in the Secret ${object}-env`,
    );
  w.comment(
    `  Each pod's rows go to OUT/pod-K/results.ndjson, then \`benchspec merge OUT/pod-* -o OUT/merged\``,
  );
  w.comment(`  (here, when benchspec runs: BENCHSPEC_COMMAND, default benchspec).`);
  w.line("set -euo pipefail");
  w.assign("BS_NAME", object);
  w.assign("BS_PODS", group.pods);
  w.assign("BS_MANIFESTS", kubernetesBatch.path(name));
  w.assign("BS_PLAN", RUN_FILES.plan.name);
  w.assign("BS_DEFAULT_PERIOD", DEFAULT_PERIOD_S);
  w.assign("BS_SELECTOR", `${JOB_LABEL}=${object}`);
  w.assign("BS_PART", PART);
  w.line(`BS_SECRETS=(${secrets.join(" ")})`);
  w.line(
    `BS_KUBECTL=(kubectl ${[
      ...(group.kubeconfig !== undefined ? ["--kubeconfig", group.kubeconfig] : []),
      ...(group.context !== undefined ? ["--context", group.context] : []),
      ...(group.namespace !== undefined ? ["--namespace", group.namespace] : []),
    ]
      .map((word) => shellWord(word, `the kubeconfig of host group ${name}`))
      .join(" ")})`,
  );
  w.code(shellAsset(new URL("./kubernetes.sh", import.meta.url)));
  w.line('bs_kube_main "$@"');
  return w.toString();
}
