/**
 * The Kubernetes test cluster (scripts/kube/cluster.sh) for a test file: started once, its images built
 * here and imported (nothing pulled), taken down after — checked to leave no process, mount, bridge,
 * address or directory behind. One cluster runs on a machine at a time: the tests that need one are in
 * one file.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { expect } from "vitest";
import { ROOT } from "./spec.js";

const SCRIPTS = join(ROOT, "scripts", "kube");
const TOOLS = process.env.BENCHSPEC_TOOLS_DIR ?? join(process.env.HOME ?? "/root", ".cache/benchspec/tools");
/** Where kubectl is: on PATH for the coordinator, as a user's would be. */
export const KUBE_BIN = join(TOOLS, "kube-v1.34.4");
/** The node's address: servers the pods reach listen on it. */
export const NODE_ADDRESS = "10.99.0.1";
export const NODE_NAME = "bskube-node";
/** The benchspec image the tests build from the repository's Containerfile. */
export const BENCHSPEC_IMAGE = "benchspec.local/benchspec:test";
/** The label of everything benchspec creates in a cluster. */
export const MANAGED = "app.kubernetes.io/managed-by=benchspec";

export interface Cluster {
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<{ exitCode?: number; stdout: string; stderr: string }>;
  /** Imports an OCI image archive into the node. */
  image(archive: string): Promise<void>;
  /** Builds the benchspec image (scripts/kube/image.sh) and imports it. */
  benchspecImage(work: string): Promise<void>;
  /** What of benchspec's is in the cluster, in any namespace: Jobs, pods and volume claims. */
  leftBehind(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startCluster(dir: string): Promise<Cluster> {
  const up = await execa("bash", [join(SCRIPTS, "cluster.sh"), "up", dir], { reject: false });
  expect(up.exitCode, up.stderr).toBe(0);
  const kubeconfig = join(dir, "admin.kubeconfig");
  const kubectl = async (args: string[], input?: string) => {
    const result = await execa(join(KUBE_BIN, "kubectl"), ["--kubeconfig", kubeconfig, ...args], {
      input,
      reject: false,
    });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  const image = async (archive: string) => {
    const imported = await execa("bash", [join(SCRIPTS, "cluster.sh"), "image", dir, archive], {
      reject: false,
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
  };
  return {
    dir,
    kubeconfig,
    kubectl,
    image,
    async benchspecImage(work) {
      await mkdir(work, { recursive: true });
      const archive = join(work, "benchspec.tar");
      const built = await execa("bash", [join(SCRIPTS, "image.sh"), archive, BENCHSPEC_IMAGE], {
        reject: false,
      });
      expect(built.exitCode, built.stderr).toBe(0);
      await image(archive);
    },
    async leftBehind() {
      const listed = await kubectl([
        "get",
        "jobs,pods,pvc",
        "--all-namespaces",
        "--selector",
        MANAGED,
        "--output",
        "name",
      ]);
      expect(listed.exitCode, listed.stderr).toBe(0);
      return listed.stdout.split("\n").filter(Boolean);
    },
    async stop() {
      const down = await execa("bash", [join(SCRIPTS, "cluster.sh"), "down", dir], { reject: false });
      expect(down.exitCode, down.stderr).toBe(0);
      expect(existsSync(dir)).toBe(false);
      expect(readFileSync("/proc/mounts", "utf8")).not.toContain(dir);
      expect((await execa("ip", ["-o", "addr", "show", "dev", "lo"])).stdout).not.toContain(
        `${NODE_ADDRESS}/`,
      );
      expect((await execa("ip", ["link", "show", "bskube0"], { reject: false })).exitCode).not.toBe(0);
      const left = await execa("pgrep", ["-af", `${dir}|kube-apiserver|kubelet --config`], { reject: false });
      expect(left.stdout.split("\n").filter((line) => line && !line.includes("pgrep"))).toEqual([]);
    },
  };
}
