/**
 * IPFS in the shell script, against the target's Kubo RPC API (given as a URL or a multiaddr). The timed
 * requests go over HTTP through one curl process that keeps `concurrency` of them in flight as one shared
 * queue and times every transfer (as for S3: `ipfs add`/`ipfs cat` per object would measure the CLI's start-up, and made a study's script
 * report IPFS 10× faster than S3 where `benchspec run` found the opposite): put = POST /api/v0/add
 * (multipart form) with the case's cid-version/raw-leaves/chunker/pin, get = POST /api/v0/cat?arg=CID to
 * /dev/null of objects added first (unmeasured). The add requests are benchspec run's (rpc.ts): the same
 * query (stream-channels, progress=false) and no `Expect: 100-continue`. The timed window runs from the
 * barrier's release, the curl started and its connections opened, to the last transfer's end; run's from
 * its first request, its connections opened and its add path run once before (run.ts), to its last
 * response's end. The `ipfs` CLI does the untimed work (the node check, pins, clean-up). Payload files are
 * fresh random data per repetition, so the node cannot deduplicate one repetition against another.
 *
 * Afterwards — also after a failure or Ctrl-C, and unless the target says `keep: true` — exactly what the
 * repetition added is removed, as the sdk call sequence's `block/rm` on an external node (docs/sdk-format.md):
 * the blocks of each CID it added are listed (`ipfs refs -r`, offline, plus the directory block `ipfs add`
 * leaves besides), the CIDs it pinned are unpinned (`ipfs pin rm`, never one that was pinned before the
 * repetition), and those blocks removed (`ipfs block rm`; Kubo keeps any that is still pinned). Content
 * that is not unique to the run (zero or compressible data) is only unpinned. The script never launches a
 * node, so the node may hold the user's data: it never runs `ipfs repo gc`, which would collect every
 * unpinned block of the node.
 */
import { scriptLoad } from "../../emit/sdk-format.js";
import type { Case } from "../../plan/types.js";
import { shellDataMode } from "../../emit/data-mode.js";
import type { Engine } from "../types.js";
import { shellLibrary } from "../../emit/shell-assets.js";
import { curlSeries, DRAWN_SIZE_GAP } from "../load/curl-shell.js";

export const ipfsShellTools = ["ipfs", "curl"] as const;

export const ipfsShellCase: Engine["shellCase"] = (c: Case, w, ctx) => {
  const p = c.params;
  if (typeof p.size !== "number") {
    w.line(`bs_fail ${w.quote(DRAWN_SIZE_GAP)}`);
    return;
  }
  const target = ctx.plan.targets[c.target];
  const keep = target?.kind === "ipfs" && target.keep === true;
  // Only random payloads are unique to the run here: the script's compressible files put their zeros in
  // runs of up to 1 MiB, so whole chunks are zeros, the same on every node (bs_data_compressible).
  const unique = shellDataMode(c) === "random" && p.size > 0;
  const cleanup = keep ? "keep" : unique ? "remove" : "unpin";
  const { concurrency, rounds, stopWhenGainBelow } = scriptLoad(c);
  curlSeries(c, w);
  w.line(
    [
      "bs_ipfs_case",
      c.op,
      p.size,
      p.objects!,
      concurrency,
      shellDataMode(c),
      p.cidVersion!,
      String(p.rawLeaves!),
      p.chunker!,
      String(p.pin!),
      cleanup,
      ...(rounds ? [rounds.join(" "), stopWhenGainBelow!] : []),
    ]
      .map((value) => w.quote(value))
      .join(" "),
  );
};

/** The bash functions every IPFS case (and the IPFS target setup) calls. */
export const ipfsShellLibrary = shellLibrary(new URL("./ipfs.sh", import.meta.url));
