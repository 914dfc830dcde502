/**
 * Removing what an attempt of a run left outside its run directory — what a killed benchspec could not
 * remove itself: owned target directories, launched servers' data, keys under the run's prefixes in a
 * store. Only what leftovers.ndjson records is touched, and only what has the shape of something a run
 * creates (a `benchspec-…` directory, a `benchspec/<spec>/<run-id>/` prefix); removing is idempotent.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, isAbsolute } from "node:path";
import { loadSpec } from "../engines/language.js";
import type { Plan } from "../plan/types.js";
import {
  readLeftovers,
  readRunState,
  runPaths,
  writeLeftovers,
  type RecordedLeftover,
} from "../results/run-dir.js";
import { removeRemoteDirectory, removeTransportLeftover } from "../hosts/transports.js";
import { targetKind } from "../targets/index.js";
import { isEngineName, loadEngine } from "../engines/index.js";

export interface CleanOutcome {
  removed: RecordedLeftover[];
  /** Directories on record that were gone already (the run removed them itself): not said as removed. */
  gone: RecordedLeftover[];
  /** What could not be removed, and why: still on record, for the next clean. */
  remaining: { leftover: RecordedLeftover; reason: string }[];
}

/** Where a leftover is, in words. */
export const describeLeftover = (l: RecordedLeftover) =>
  l.kind === "directory"
    ? l.path
    : l.kind === "keys"
      ? `the keys under ${l.bucket}/${l.prefix} (target ${l.target})`
      : l.kind === "engine"
        ? `${l.what} (target ${l.target})`
        : l.kind === "transport"
          ? `${l.what} (host group ${l.group})`
          : `what ${l.added.length === 1 ? "an add" : `${l.added.length} adds`} stored on the IPFS node of target ${l.target} (${l.added
              .slice(0, 2)
              .map((a) => a.cid)
              .join(", ")}${l.added.length > 2 ? ", …" : ""})`;

export async function cleanRunDir(dir: string, env: NodeJS.ProcessEnv): Promise<CleanOutcome> {
  const state = await readRunState(dir);
  // What an engine recorded comes last: it may stand for what the target's own records name (an add's
  // blocks), which are removed by then and need not be looked for.
  const leftovers = coalesce(readLeftovers(dir)).sort(
    (a, b) => Number(a.kind === "engine") - Number(b.kind === "engine"),
  );
  let plan: Promise<Plan> | undefined;
  // The spec is loaded only for leftovers in a store: how to reach it is in the spec (and the environment).
  const targetsPlan = () =>
    (plan ??= loadSpec(runPaths(dir).spec, { sets: state.sets, hosts: state.hosts, only: state.only }).then(
      (loaded) => {
        if (!loaded.plan) throw new Error(`${runPaths(dir).spec} is not a valid spec any more`);
        return loaded.plan;
      },
    ));
  const outcome: CleanOutcome = { removed: [], gone: [], remaining: [] };
  for (const leftover of leftovers) {
    try {
      const existed = await removeLeftover(leftover, targetsPlan, env);
      (existed ? outcome.removed : outcome.gone).push(leftover);
    } catch (error) {
      outcome.remaining.push({ leftover, reason: (error as Error).message });
    }
  }
  await writeLeftovers(
    dir,
    outcome.remaining.map((r) => r.leftover),
  );
  return outcome;
}

/**
 * The roots an IPFS run recorded add by add, as one leftover per target (and pinning): removed in a few
 * batched calls, said in one line.
 */
function coalesce(leftovers: readonly RecordedLeftover[]): RecordedLeftover[] {
  const out: RecordedLeftover[] = [];
  const byTarget = new Map<string, Extract<RecordedLeftover, { kind: "cids" }>>();
  for (const leftover of leftovers) {
    if (leftover.kind !== "cids") {
      out.push(leftover);
      continue;
    }
    const key = JSON.stringify([leftover.target, leftover.host, leftover.unpin]);
    const same = byTarget.get(key);
    if (same) same.added.push(...leftover.added);
    else {
      const first = { ...leftover, added: [...leftover.added] };
      byTarget.set(key, first);
      out.push(first);
    }
  }
  return out;
}

/** Removes it; false when it was a directory here that was gone already. */
async function removeLeftover(
  leftover: RecordedLeftover,
  plan: () => Promise<Plan>,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  if (leftover.kind === "directory") {
    // Every directory a run creates outside its run directory is named benchspec-…; anything else on record
    // was not written by benchspec and is left alone.
    if (!isAbsolute(leftover.path) || !basename(leftover.path).startsWith("benchspec-"))
      throw new Error("not a directory benchspec creates; left alone");
    if (leftover.host !== undefined) {
      // On a client host: removed there, reached the way the run reached it (its group's transport).
      const group = leftover.group === undefined ? undefined : (await plan()).hosts[leftover.group];
      if (!group) throw new Error(`it is on host ${leftover.host}: remove it there`);
      await removeRemoteDirectory(group, leftover.host, leftover.path);
      return true;
    }
    if (!existsSync(leftover.path)) return false;
    await rm(leftover.path, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    return true;
  }
  if (leftover.kind === "transport") {
    const group = leftover.group === undefined ? undefined : (await plan()).hosts[leftover.group];
    if (!group) throw new Error(`the spec has no host group ${leftover.group ?? "(none recorded)"}`);
    return removeTransportLeftover(group, leftover.record, env);
  }
  const target = leftover.target === undefined ? undefined : (await plan()).targets[leftover.target];
  if (!target) throw new Error(`the spec has no target ${leftover.target ?? "(none recorded)"}`);
  if (leftover.kind === "engine") {
    const engine = isEngineName(leftover.engine) ? await loadEngine(leftover.engine) : undefined;
    if (!engine?.removeLeftover)
      throw new Error(`this benchspec's engine ${leftover.engine} leaves no such thing`);
    return engine.removeLeftover(target, leftover.record, env);
  }
  const remove = targetKind(target.kind).removeLeftover as
    ((t: typeof target, l: RecordedLeftover, e: NodeJS.ProcessEnv) => Promise<void>) | undefined;
  if (!remove) throw new Error(`a ${target.kind} target leaves no such thing`);
  await remove(target, leftover, env);
  return true;
}
