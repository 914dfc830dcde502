/**
 * The Kubernetes test cluster (scripts/kube/cluster.sh) for a test file: started once, its images built
 * here and imported (nothing pulled), taken down after — checked to leave no process, mount, bridge,
 * address or directory behind. One cluster runs on a machine at a time: the tests that need one are in
 * one file (the bench starts its own when they do not run). Failures throw: the bench uses it too.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { ROOT } from "./spec.js";

const SCRIPTS = join(ROOT, "scripts", "kube");
const TOOLS = process.env.BENCHSPEC_TOOLS_DIR ?? join(process.env.HOME ?? "/root", ".cache/benchspec/tools");
/** Where kubectl is: on PATH for the coordinator, as a user's would be. */
export const KUBE_BIN = join(TOOLS, "kube-v1.34.4");
/** Node 1's address, the host's own: servers the pods of every node reach listen on it. */
export const NODE_ADDRESS = "10.99.0.1";
/** How many nodes the test cluster has: three pods spread one per node, as a real cluster places them. */
export const NODES = 3;
/** Node K's name (1-based). */
export const nodeName = (k: number) => `bskube-node-${k}`;
/** The benchspec image the tests build from the repository's Containerfile. */
export const BENCHSPEC_IMAGE = "benchspec.local/benchspec:test";
/** The label of everything benchspec creates in a cluster. */
export const MANAGED = "app.kubernetes.io/managed-by=benchspec";

export interface Cluster {
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<{ exitCode?: number; stdout: string; stderr: string }>;
  /** Imports an OCI image archive into every node. */
  image(archive: string): Promise<void>;
  /** Cuts node K's network (a node lost) or connects it again. */
  link(node: number, state: "up" | "down"): Promise<void>;
  /** Builds the benchspec image (scripts/kube/image.sh) and imports it. */
  benchspecImage(work: string): Promise<void>;
  /** What of benchspec's is in the cluster, in any namespace: Jobs, pods, volume claims, ConfigMaps, Secrets. */
  leftBehind(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Runs a script of scripts/kube, throwing with what it said when it fails. */
async function script(args: string[]): Promise<void> {
  const result = await execa("bash", args, { reject: false });
  if (result.exitCode !== 0) throw new Error(`${args.join(" ")}: exit ${result.exitCode}: ${result.stderr}`);
}

export async function startCluster(dir: string): Promise<Cluster> {
  await script([join(SCRIPTS, "cluster.sh"), "up", dir, "--nodes", String(NODES)]);
  const kubeconfig = join(dir, "admin.kubeconfig");
  const kubectl = async (args: string[], input?: string) => {
    const result = await execa(join(KUBE_BIN, "kubectl"), ["--kubeconfig", kubeconfig, ...args], {
      input,
      reject: false,
    });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  const image = (archive: string) => script([join(SCRIPTS, "cluster.sh"), "image", dir, archive]);
  return {
    dir,
    kubeconfig,
    kubectl,
    image,
    link: (node, state) => script([join(SCRIPTS, "cluster.sh"), "link", dir, String(node), state]),
    async benchspecImage(work) {
      await mkdir(work, { recursive: true });
      const archive = join(work, "benchspec.tar");
      await script([join(SCRIPTS, "image.sh"), archive, BENCHSPEC_IMAGE]);
      await image(archive);
    },
    async leftBehind() {
      const listed = await kubectl([
        "get",
        "jobs,pods,pvc,configmaps,secrets",
        "--all-namespaces",
        "--selector",
        MANAGED,
        "--output",
        "name",
      ]);
      if (listed.exitCode !== 0) throw new Error(`kubectl get: ${listed.stderr}`);
      return listed.stdout.split("\n").filter(Boolean);
    },
    async stop() {
      await script([join(SCRIPTS, "cluster.sh"), "down", dir]);
      const left = [
        existsSync(dir) && dir,
        readFileSync("/proc/mounts", "utf8").includes(dir) && `mounts under ${dir}`,
        (await execa("ip", ["-o", "addr", "show", "dev", "lo"])).stdout.includes(`${NODE_ADDRESS}/`) &&
          `${NODE_ADDRESS} on lo`,
        ...(await Promise.all(
          ["bskube0", "bskube-link"].map(
            async (bridge) =>
              (await execa("ip", ["link", "show", bridge], { reject: false })).exitCode === 0 &&
              `the bridge ${bridge}`,
          ),
        )),
        ...(existsSync("/var/log/containers")
          ? readdirSync("/var/log/containers", { withFileTypes: true })
          : []
        )
          .filter((entry) => entry.isSymbolicLink())
          .map((entry) => join("/var/log/containers", entry.name))
          .filter((link) => readlinkSync(link).startsWith(`${dir}/`))
          .map((link) => `the log link ${link}`),
        ...(await execa("ip", ["netns", "list"])).stdout
          .split("\n")
          .filter((line) => line.startsWith("bskube-"))
          .map((line) => `the network namespace ${line}`),
        ...(await execa("pgrep", ["-af", `${dir}|kube-apiserver|kubelet --config`], { reject: false })).stdout
          .split("\n")
          .filter((line) => line && !line.includes("pgrep")),
      ].filter((what) => what);
      if (left.length > 0) throw new Error(`cluster.sh down left: ${left.join("; ")}`);
    },
  };
}
