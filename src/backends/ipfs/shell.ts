/**
 * IPFS in the shell script, through the `ipfs` CLI (Kubo) against the target's RPC API (`--api`, given as a
 * URL or a multiaddr). put = `ipfs add -Q` with the case's --cid-version/--raw-leaves/--chunker/--pin, get =
 * `ipfs cat CID > /dev/null` of objects added first (unmeasured). Payload files are fresh random data per
 * repetition, so the node cannot deduplicate one repetition against another. `concurrency` workers start
 * together behind the barrier and take objects i ≡ worker (mod concurrency).
 *
 * Afterwards — also after a failure or Ctrl-C — what the repetition added is unpinned (`ipfs pin rm`) and
 * the node's garbage collector runs (`ipfs repo gc`). Note that gc also collects any other unpinned blocks
 * of that node; point the script at a node of its own (an offline `ipfs daemon`), as `launch: kubo` does.
 */
import type { Case } from "../../plan/types.js";
import { shellDataMode } from "../shell/data-mode.js";
import type { Backend } from "../types.js";
import type { ShellScriptWriter } from "../writer.js";

export const ipfsShellTools = ["ipfs"] as const;

export const ipfsShellCase: Backend["shellCase"] = (c: Case, w) => {
  const p = c.params;
  if (p.autotune) w.comment(`autotune is not run by this script: ${p.autotune.param} = ${p.autotune.start}`);
  const concurrency = p.autotune?.param === "concurrency" ? p.autotune.start : p.concurrency!;
  w.line(
    [
      "bs_ipfs_case",
      c.op,
      p.size!,
      p.objects!,
      concurrency,
      shellDataMode(c),
      p.cidVersion!,
      String(p.rawLeaves!),
      p.chunker!,
      String(p.pin!),
    ]
      .map((value) => w.quote(value))
      .join(" "),
  );
};

/** The bash functions every IPFS case (and the IPFS target setup) calls. */
export function ipfsShellLibrary(w: ShellScriptWriter): void {
  for (const line of IPFS_LIBRARY.replace(/^\n/, "").replace(/\n$/, "").split("\n")) w.line(line);
}

const IPFS_LIBRARY = `
bs_ipfs() { ipfs --api="$BS_IPFS_API" "$@"; }

# bs_ipfs_target_check TARGET: the API address as the multiaddr the CLI wants, and a node that answers.
bs_ipfs_target_check() {
  local api=$BS_IPFS_API re='^(https?)://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(:([0-9]+))?/?$' scheme host port
  if [[ $api != /* ]]; then
    if [[ ! $api =~ $re ]]; then bs_die "target $1: $api is neither an http(s) URL nor a multiaddr"; fi
    scheme=\${BASH_REMATCH[1]} host=\${BASH_REMATCH[2]} port=\${BASH_REMATCH[4]}
    if [[ -z $port ]]; then
      if [[ $scheme == https ]]; then port=443; else port=80; fi
    fi
    if [[ $host == \\[* ]]; then
      host=/ip6/\${host:1:\${#host}-2}
    elif [[ $host =~ ^[0-9.]+$ ]]; then
      host=/ip4/$host
    else
      host=/dns/$host
    fi
    api=$host/tcp/$port
    if [[ $scheme == https ]]; then api+=/https; fi
  fi
  BS_TAPI[$1]=$api
  BS_IPFS_API=$api
  bs_ipfs id >/dev/null || bs_die "target $1: no Kubo RPC API answers at $api"
}

# bs_ipfs_case OP SIZE OBJECTS CONCURRENCY DATA CID-VERSION RAW-LEAVES CHUNKER PIN: one repetition.
bs_ipfs_case() {
  local op=$1 size=$2 objects=$3 conc=$4 data=$5 i ok=true error=''
  BS_IPFS_ADD=(add -Q --cid-version="$6" --raw-leaves="$7" --chunker="$8" --pin="$9")
  BS_REP_CLEANUP=bs_ipfs_cleanup
  mkdir -- "$BS_REPDIR/data" "$BS_REPDIR/cid"
  for ((i = 0; i < objects; i++)); do bs_data "$BS_REPDIR/data/obj-$i" "$size" "$data"; done
  if [[ $op != put ]]; then
    BS_IPFS_ADD=(add -Q --cid-version="$6" --raw-leaves="$7" --chunker="$8" --pin=true)
    bs_pool "$conc" bs_ipfs_worker put "$objects" "$conc" "$size"
    bs_pool_stats "$conc"
    if ((BS_FAILED_OPS > 0 || BS_OPS < objects)); then bs_fail "adding the objects before $op failed: $BS_ERROR"; fi
    rm -f -- "$BS_REPDIR"/ops.* "$BS_REPDIR"/error.*
  fi
  bs_pool "$conc" bs_ipfs_worker "$op" "$objects" "$conc" "$size"
  bs_pool_stats "$conc"
  if ((BS_FAILED_OPS > 0)); then
    ok=false error="$BS_FAILED_OPS of $((BS_OPS + BS_FAILED_OPS)) requests failed; $BS_ERROR"
  elif [[ -n $BS_ERROR ]]; then
    ok=false error=$BS_ERROR
  fi
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$BS_BYTES" "$BS_OPS"
}

# bs_ipfs_worker WORKER OP OBJECTS CONCURRENCY SIZE
bs_ipfs_worker() {
  local w=$1 op=$2 objects=$3 conc=$4 size=$5 i cid
  for ((i = w; i < objects; i += conc)); do
    case $op in
      put) bs_op "$w" "$size" "$BS_REPDIR/cid/$i" bs_ipfs "\${BS_IPFS_ADD[@]}" "$BS_REPDIR/data/obj-$i" ;;
      get)
        cid=
        IFS= read -r cid <"$BS_REPDIR/cid/$i" || true
        bs_op "$w" "$size" /dev/null bs_ipfs cat "$cid"
        ;;
      *) bs_fail "unknown IPFS operation $op" ;;
    esac
  done
}

# Unpins what the repetition added and collects it; runs when the repetition ends, also after Ctrl-C.
bs_ipfs_cleanup() {
  local f cid
  for f in "$BS_REPDIR"/cid/*; do
    [[ -s $f ]] || continue
    IFS= read -r cid <"$f" || true
    if [[ -n $cid ]]; then bs_ipfs pin rm "$cid" >/dev/null 2>&1 || true; fi
  done
  bs_ipfs repo gc >/dev/null 2>&1 || bs_log "ipfs repo gc failed"
}
`;
