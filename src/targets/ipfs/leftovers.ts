/**
 * Removing what a killed run's adds left on an external IPFS node: the roots it recorded as it added them,
 * their blocks, the directory blocks Kubo's add stores besides, and their pins (only pins the run made).
 */
import { resolveEnvRefs } from "../../spec/strings.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import type { Leftover } from "../types.js";
import { blocksOf, removeBlocks, throwProblems, unpin } from "./cleanup.js";

/** How long removing one record's blocks may take before it is given up (a node that does not answer). */
const REMOVE_TIMEOUT_MS = 60_000;

export async function removeIpfsLeftover(
  target: TargetOf<"ipfs">,
  leftover: Leftover,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (leftover.kind !== "cids") throw new Error(`${JSON.stringify(leftover)} is not what an add stored`);
  // A node benchspec launched went with its repo (a directory leftover of its own).
  if (target.launch || target.api === undefined) return;
  const { create } = await import("kubo-rpc-client");
  const client = create({ url: resolveEnvRefs(target.api, env), timeout: "60s" });
  const signal = AbortSignal.timeout(REMOVE_TIMEOUT_MS);
  const problems: string[] = [];
  const blocks = await blocksOf(client, leftover.added, signal, problems);
  if (leftover.unpin)
    await unpin(
      client,
      leftover.added.map((a) => a.cid),
      signal,
      problems,
    );
  await removeBlocks(client, blocks, signal, problems);
  throwProblems(problems);
}
