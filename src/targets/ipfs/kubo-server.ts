/**
 * `launch: kubo`: a throwaway offline Kubo node whose RPC API and gateway listen on loopback only.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { freePorts } from "../../platform/ports.js";
import { startGroup } from "../../platform/process.js";
import { kuboBinary } from "../../platform/tools.js";
import { waitForHttp } from "../../platform/wait.js";

export interface KuboNode {
  /** RPC API base URL, e.g. "http://127.0.0.1:40123" (what kubo-rpc-client and `ipfs --api` accept). */
  api: string;
  /** The same address as a multiaddr, e.g. "/ip4/127.0.0.1/tcp/40123". */
  apiMultiaddr: string;
  /** Gateway base URL. */
  gateway: string;
  /** The temp IPFS_PATH (removed by stop()). */
  repoPath: string;
  /** Process-group id of the daemon. */
  pid: number;
  /** Kills the daemon's process group and removes the repo. Idempotent. */
  stop(): Promise<void>;
}

export interface LaunchKuboOptions {
  /** Parent of the temp repo; put it on the storage under test. Default: os.tmpdir(). */
  parentDir?: string;
  binary?: string;
  startTimeoutMs?: number;
  /** Told the repo as soon as it exists (a run records it, to remove it should the run be killed). */
  created?: (repoPath: string) => void;
}

export async function launchKubo(options: LaunchKuboOptions = {}): Promise<KuboNode> {
  const binary = options.binary ?? kuboBinary();
  const repoPath = await mkdtemp(path.join(options.parentDir ?? os.tmpdir(), "benchspec-kubo-"));
  options.created?.(repoPath);
  // IPFS_TELEMETRY=off: Kubo ≥0.37 ships a telemetry plugin that would otherwise report home.
  const env = { IPFS_PATH: repoPath, IPFS_TELEMETRY: "off" };
  const [apiPort, gatewayPort] = await freePorts(["127.0.0.1", "127.0.0.1"]);
  const apiMultiaddr = `/ip4/127.0.0.1/tcp/${apiPort}`;
  const api = `http://127.0.0.1:${apiPort}`;

  let daemon;
  try {
    // The test profile sets loopback addresses, no bootstrap peers, no mDNS/AutoTLS/AutoConf;
    // --empty-repo skips the bundled help files so the repo holds only what a benchmark adds.
    await execa(binary, ["init", "--profile", "test", "--empty-repo"], { env, timeout: 30_000 });
    await configure(repoPath, apiMultiaddr, `/ip4/127.0.0.1/tcp/${gatewayPort}`);
    // --offline: no swarm at all, so nothing leaves the machine and no peer can fetch the benchmark data.
    daemon = await startGroup(binary, ["daemon", "--offline"], { label: "kubo", env });
    // The RPC API only accepts POST; /id answers once the node and API are up.
    await waitForHttp(`${api}/api/v0/id`, daemon, { method: "POST", timeoutMs: options.startTimeoutMs });
  } catch (error) {
    await daemon?.stop();
    await rm(repoPath, { recursive: true, force: true });
    throw error;
  }

  const group = daemon;
  let stopping: Promise<void> | undefined;
  return {
    api,
    apiMultiaddr,
    gateway: `http://127.0.0.1:${gatewayPort}`,
    repoPath,
    pid: group.pid,
    stop: () =>
      (stopping ??= (async () => {
        await group.stop();
        await rm(repoPath, { recursive: true, force: true });
      })()),
  };
}

/**
 * Edits the config file directly rather than through `ipfs config` (one process start per key).
 * Fixed ports instead of the profile's tcp/0 so the addresses are known before the daemon prints them.
 */
async function configure(repoPath: string, apiAddr: string, gatewayAddr: string): Promise<void> {
  const file = path.join(repoPath, "config");
  const config = JSON.parse(await readFile(file, "utf8")) as KuboConfig;
  config.Addresses = { ...config.Addresses, API: apiAddr, Gateway: gatewayAddr, Swarm: [] };
  config.Bootstrap = [];
  config.Plugins = { ...config.Plugins, Plugins: { telemetry: { Config: { Mode: "off" } } } };
  await writeFile(file, JSON.stringify(config, null, 2));
}

interface KuboConfig {
  Addresses?: Record<string, unknown>;
  Bootstrap?: string[];
  Plugins?: Record<string, unknown>;
}
