/** Preparing an ipfs target: a launched offline Kubo node (renewable for `fresh`), or an external API. */
import type { Target } from "../../spec/schema.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import { launchKubo, type KuboNode } from "./kubo-server.js";

type IpfsTarget = Extract<Target, { kind: "ipfs" }>;

export interface IpfsConnection {
  /** The RPC API base URL; changes when the node is renewed. */
  api: string;
  /** benchspec started this node (a throwaway repo); false for an external `api:` node, which holds the user's data. */
  launched: boolean;
  /** Replaces a launched node by one with an empty repo; absent for external nodes (never wiped). */
  renew?: () => Promise<void>;
  /** Each launched repo so far, for tests and provenance. */
  repos: string[];
  /** Nothing has run on the node since it was launched (a fresh node need not be replaced yet). */
  pristine: boolean;
}

export async function prepareIpfsTarget(target: IpfsTarget, env: NodeJS.ProcessEnv) {
  if (!target.launch) {
    const connection: IpfsConnection = {
      api: resolveEnvRefs(target.api!, env),
      launched: false,
      repos: [],
      pristine: false,
    };
    return { location: connection.api, ipfs: connection, cleanup: async () => {} };
  }
  let node: KuboNode = await launchKubo();
  const connection: IpfsConnection = {
    api: node.api,
    launched: true,
    repos: [node.repoPath],
    pristine: true,
    renew: async () => {
      await node.stop();
      node = await launchKubo();
      connection.api = node.api;
      connection.repos.push(node.repoPath);
      connection.pristine = true;
    },
  };
  return { location: node.api, ipfs: connection, cleanup: () => node.stop() };
}
