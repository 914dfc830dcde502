/**
 * Cases from pods of a Kubernetes cluster: the test cluster of scripts/kube/cluster.sh (a control plane and
 * three nodes on this machine, one pod each; needs root and the tools `npm run setup` builds), the benchspec image built from
 * the Containerfile and imported, and `benchspec run` reaching three pods with `transport: kubernetes`,
 * rounds interleaved with the same cases on this machine.
 *   Coordination overhead per case: (wall time of `benchspec run` − the rows' measured seconds) ÷ cases, the
 *   same short dd cases as the multi-host section (hosts.ts: ssh), so the lines read side by side. What the
 *   group adds: the Job created, its pods scheduled and started, kubectl attach through the API server,
 *   arming, clock readings, the start instant, merging, and the Job deleted with its pods at the end.
 */
import { join } from "node:path";
import { stringify } from "yaml";
import { BENCHSPEC_IMAGE, KUBE_BIN, startCluster } from "../test/support/kube.js";
import { runBenchspec } from "./benchspec.js";
import { config } from "./config.js";
import { overheadOf, perCase, SHORT_CASES, SHORT_WORKLOAD } from "./hosts.js";
import { failedLine, type BenchLine } from "./lines.js";
import { medianOf } from "./stats.js";

const SECTION = "kubernetes";
const PODS = 3;

type Placement = "local" | "pods";

export async function benchKube(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  if (process.getuid?.() !== 0)
    return [
      failedLine(SECTION, "kubernetes", new Error("needs root: the test cluster's node runs containers")),
    ];
  const cluster = await startCluster(join(scratch, "kube-cluster"));
  try {
    await cluster.benchspecImage(join(scratch, "kube-image"));
    log(`kubernetes: cluster up, ${BENCHSPEC_IMAGE} imported`);
    const rounds: {
      placement: Placement;
      wall: number;
      measured: number;
      beforeFirst: number;
      afterLast: number;
    }[] = [];
    for (let r = 1; r <= config.rounds; r++) {
      const order: Placement[] = r % 2 === 1 ? ["local", "pods"] : ["pods", "local"];
      for (const placement of order) {
        const onPods = placement === "pods";
        const spec = stringify({
          benchspec: 1,
          name: "bench-kube",
          // In each pod, its own file system; here, the bench's scratch (tmpfs).
          targets: { scratch: { kind: "fs", path: "${env:BENCH_KUBE_DIR}" } },
          ...(onPods && {
            hosts: {
              pods: {
                transport: "kubernetes",
                pods: PODS,
                image: BENCHSPEC_IMAGE,
                imagePullPolicy: "Never",
                kubeconfig: cluster.kubeconfig,
              },
            },
            defaults: { hosts: "pods" },
          }),
          workloads: [SHORT_WORKLOAD],
        });
        const run = await runBenchspec(scratch, `kube-${placement}`, spec, {
          BENCH_KUBE_DIR: onPods ? "/tmp" : scratch,
          PATH: `${KUBE_BIN}:${process.env.PATH}`,
        });
        rounds.push({ placement, ...overheadOf(run) });
        log(`kubernetes round ${r}, ${placement}: ${SHORT_CASES} cases in ${run.wall.toFixed(1)} s`);
      }
    }
    const of = (placement: Placement) => rounds.filter((round) => round.placement === placement);
    const part = (placement: Placement, f: (round: (typeof rounds)[number]) => number) =>
      medianOf(of(placement), f).toFixed(2);
    const engine = medianOf(of("pods"), perCase);
    return [
      {
        section: SECTION,
        metric: `coordination overhead per case, ${PODS} pods (${SHORT_CASES} short dd cases)`,
        unit: "s",
        engine,
        reference: medianOf(of("local"), perCase),
        target: "< 1 s",
        verdict: engine < 1 ? "PASS" : "BELOW",
        note:
          `reference: the same cases on this machine; beside the multi-host section's ssh lines. ` +
          `benchspec run ${part("pods", (r) => r.wall)} s − measured ${part("pods", (r) => r.measured)} s; ` +
          `start → first repetition ${part("pods", (r) => r.beforeFirst)} s (the Job created, its pods scheduled and started, kubectl attach, the workers' hello and compile, arming, clock readings), ` +
          `after the last ${part("pods", (r) => r.afterLast)} s (the workers' cleanup, the Job deleted with its pods); ` +
          `per case between them ${part("pods", (r) => (r.wall - r.measured - r.beforeFirst - r.afterLast) / SHORT_CASES)} s ` +
          `(this machine: ${part("local", (r) => (r.wall - r.measured - r.beforeFirst - r.afterLast) / SHORT_CASES)} s)`,
        detail: { pods: of("pods"), local: of("local") },
      },
    ];
  } finally {
    await cluster.stop();
  }
}
