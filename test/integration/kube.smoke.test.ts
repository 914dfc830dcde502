/**
 * The Kubernetes test cluster (scripts/kube/cluster.sh): a real control plane and node on this machine. An
 * Indexed Job's pods get their indexes from the Job controller and reach a server the test runs on the
 * node's address; a pod takes a stream through the API server (exec with stdin, as the transport will);
 * and `down` leaves no process, mount, bridge, address or directory behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const CLUSTER = join(ROOT, "scripts", "kube", "cluster.sh");
const TOOLS = process.env.BENCHSPEC_TOOLS_DIR ?? join(process.env.HOME ?? "/root", ".cache/benchspec/tools");
const KUBECTL = join(TOOLS, "kube-v1.34.4", "kubectl");
const NODE_ADDRESS = "10.99.0.1";
const newDir = tempDirs("benchspec-kube-");

describe("the Kubernetes test cluster", () => {
  let dir: string;
  let server: Server;
  let port: number;
  const kubectl = (args: string[], input?: string) =>
    execa(KUBECTL, ["--kubeconfig", join(dir, "admin.kubeconfig"), ...args], { input, reject: false });

  beforeAll(async () => {
    dir = join(await newDir(), "cluster");
    const up = await execa("bash", [CLUSTER, "up", dir], { reject: false });
    expect(up.exitCode, up.stderr).toBe(0);
    // A shell image from Debian's static busybox, imported, never pulled.
    const image = await newDir();
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
    await execa("bash", [CLUSTER, "image", dir, archive]);
    server = createServer((request, response) => response.end(`seen ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, NODE_ADDRESS, resolve));
    port = (server.address() as { port: number }).port;
  }, 180_000);

  afterAll(async () => {
    server?.close();
    if (!dir) return;
    const down = await execa("bash", [CLUSTER, "down", dir], { reject: false });
    expect(down.exitCode, down.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync("/proc/mounts", "utf8")).not.toContain(dir);
    expect((await execa("ip", ["-o", "addr", "show", "dev", "lo"])).stdout).not.toContain(`${NODE_ADDRESS}/`);
    expect((await execa("ip", ["link", "show", "bskube0"], { reject: false })).exitCode).not.toBe(0);
    const left = await execa("pgrep", ["-af", `${dir}|kube-apiserver|kubelet --config`], { reject: false });
    expect(left.stdout.split("\n").filter((line) => line && !line.includes("pgrep"))).toEqual([]);
  }, 180_000);

  it("runs an Indexed Job whose pods know their index and reach a server on the node's address", async () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "indexed" },
      spec: {
        completionMode: "Indexed",
        completions: 3,
        parallelism: 3,
        template: {
          spec: {
            restartPolicy: "Never",
            automountServiceAccountToken: false,
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
    const file = join(dir, "job.json");
    await writeFile(file, JSON.stringify(job));
    expect((await kubectl(["apply", "-f", file])).exitCode).toBe(0);
    const done = await kubectl(["wait", "--for=condition=complete", "job/indexed", "--timeout=90s"]);
    expect(done.exitCode, done.stderr).toBe(0);
    const pods = (await kubectl(["get", "pods", "-l", "job-name=indexed", "-o", "name"])).stdout.split("\n");
    const logs = await Promise.all(pods.map(async (pod) => (await kubectl(["logs", pod])).stdout));
    expect(logs.sort()).toEqual([0, 1, 2].map((i) => `index=${i}\nseen /from-${i}`));
  }, 120_000);

  it("streams a pod's stdin and stdout through the API server (exec)", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "shell" },
      spec: {
        automountServiceAccountToken: false,
        containers: [
          {
            name: "c",
            image: "benchspec.local/busybox:1",
            imagePullPolicy: "Never",
            command: ["/bin/sh", "-c", "exec sleep 3600"],
          },
        ],
      },
    };
    const file = join(dir, "pod.json");
    await writeFile(file, JSON.stringify(pod));
    expect((await kubectl(["apply", "-f", file])).exitCode).toBe(0);
    expect((await kubectl(["wait", "--for=condition=Ready", "pod/shell", "--timeout=90s"])).exitCode).toBe(0);
    const exec = await kubectl(["exec", "-i", "shell", "--", "/bin/sh"], "echo got $((40 + 2))\n");
    expect(exec.stdout, exec.stderr).toBe("got 42");
  }, 120_000);
});
