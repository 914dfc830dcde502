/** Preparing an ipfs target: a launched offline Kubo node (renewable for `fresh`), or an external API. */
import { connectionFailure } from "../../platform/net-errors.js";
import { setupCheck, SetupTimeout } from "../../platform/timeouts.js";
import { redactUrls } from "../../platform/redact.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { wholeTarget } from "../case-place.js";
import type { PreparedTargetOf, PrepareOptions } from "../types.js";
import type { IpfsConnection } from "./connection.js";
import { launchKubo, type KuboNode } from "./kubo-server.js";

export async function prepareIpfsTarget(target: TargetOf<"ipfs">, options: PrepareOptions) {
  if (!target.launch) {
    const connection: IpfsConnection = {
      api: resolveEnvRefs(target.api!, options.env),
      launched: false,
      repos: [],
      pristine: false,
    };
    await checkApi(connection.api, options.signal);
    return prepared(connection, async () => {});
  }
  const launch = () => launchKubo({ created: (path) => options.created({ kind: "directory", path }) });
  let node: KuboNode = await launch();
  const connection: IpfsConnection = {
    api: node.api,
    launched: true,
    repos: [node.repoPath],
    pristine: true,
    renew: async () => {
      await node.stop();
      node = await launch();
      connection.api = node.api;
      connection.repos.push(node.repoPath);
      connection.pristine = true;
    },
  };
  return prepared(connection, () => node.stop());
}

/** An external node answers before the run relies on it: a dead API is said as such, not as "fetch failed". */
async function checkApi(api: string, interrupt: AbortSignal) {
  const { create } = await import("kubo-rpc-client");
  try {
    await setupCheck(interrupt, (signal) => create({ url: api }).version({ signal }));
  } catch (error) {
    const where = `IPFS API at ${redactUrls(api)}`;
    if (error instanceof SetupTimeout) throw new Error(`${where}: ${error.message}`, { cause: error });
    const connection = connectionFailure(error);
    throw new Error(
      connection
        ? `${where}: ${connection}; start the daemon (ipfs daemon) or check "api"`
        : `${where} does not answer: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function prepared(connection: IpfsConnection, cleanup: () => Promise<void>): PreparedTargetOf<"ipfs"> {
  const location = connection.api;
  return {
    kind: "ipfs",
    location,
    connection,
    enterCase: wholeTarget(location),
    details: () => (connection.repos.length > 0 ? { repos: connection.repos } : {}),
    cleanup,
  };
}
