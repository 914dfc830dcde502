# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_REP_CLEANUP and BS_TAPI are set here for the runtime and target functions
# Part of a compiled benchspec.sh that runs IPFS cases (src/engines/ipfs/shell.ts writes it). This header, up
# to the first blank line, is not copied into the script.

bs_ipfs() { ipfs --api="$BS_IPFS_API" "$@"; }

# bs_ipfs_target_check TARGET: the API address as the multiaddr the CLI wants, and a node that answers.
bs_ipfs_target_check() {
  local api=$BS_IPFS_API re='^(https?)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:([0-9]+))?/?$' scheme host port
  if [[ $api != /* ]]; then
    if [[ ! $api =~ $re ]]; then bs_die "target $1: $api is neither an http(s) URL nor a multiaddr"; fi
    scheme=${BASH_REMATCH[1]} host=${BASH_REMATCH[2]} port=${BASH_REMATCH[4]}
    if [[ -z $port ]]; then
      if [[ $scheme == https ]]; then port=443; else port=80; fi
    fi
    if [[ $host == \[* ]]; then
      host=/ip6/${host:1:${#host}-2}
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

# bs_ipfs_case OP SIZE OBJECTS CONCURRENCY DATA CID-VERSION RAW-LEAVES CHUNKER PIN CLEANUP [ROUNDS THRESHOLD]:
# one repetition. CLEANUP: keep (nothing), unpin (what the repetition pinned) or remove (unpin, then remove
# its blocks). ROUNDS: the concurrencies of an autotune, one pool each until the gain falls below THRESHOLD.
# The timed requests go to the RPC API over HTTP, all in one shared queue of one curl process (bs_curl_run),
# as `ipfs add`/`ipfs cat` would send them; the CLI would time its own start-up per object.
bs_ipfs_case() {
  local op=$1 size=$2 objects=$3 conc=$4 data=$5 tune=${11:-} threshold=${12:-} i ok=true error='' chunker addq
  bs_urlencode chunker "$8"
  # The query benchspec run's add sends (src/engines/ipfs/rpc.ts).
  addq="stream-channels=true&progress=false&cid-version=$6&raw-leaves=$7&chunker=$chunker"
  BS_IPFS_ADDQ="$addq&pin=$9"
  # What cleanup unpins: the adds before a get always pin.
  BS_IPFS_PIN=$9
  if [[ $op != put ]]; then BS_IPFS_PIN=true; fi
  BS_IPFS_CLEANUP=${10}
  if [[ $BS_IPFS_CLEANUP != keep ]]; then BS_REP_CLEANUP=bs_ipfs_cleanup; fi
  bs_ipfs_http_url
  # No Expect: 100-continue before a body (curl's default above 1 MiB), as benchspec run sends none.
  BS_CURL_COMMON=(globoff "header=Expect:")
  BS_CURL_WARMUP=("url=$BS_IPFS_HTTP/api/v0/version" request=POST)
  mkdir -- "$BS_REPDIR/data" "$BS_REPDIR/cid"
  # Content identical to the user's has the user's CID: cleanup must not unpin what was pinned before.
  if [[ $BS_IPFS_CLEANUP != keep && $BS_IPFS_PIN == true ]]; then
    bs_ipfs pin ls --type=recursive --quiet >"$BS_REPDIR/pins.before" || bs_fail "ipfs pin ls failed"
  fi
  for ((i = 0; i < objects; i++)); do bs_data "$BS_REPDIR/data/obj-$i" "$size" "$data"; done
  if [[ $op != put ]]; then
    BS_IPFS_ADDQ="$addq&pin=true"
    # Untimed: on several hosts, the repetition starts together at the timed pool (hosts.sh).
    BS_UNTIMED=1 bs_ipfs_pool put "$objects" "$conc" "$size"
    if ((BS_FAILED_OPS > 0 || BS_OPS < objects)); then bs_fail "adding the objects before $op failed: $BS_ERROR"; fi
    rm -f -- "$BS_REPDIR"/ops.* "$BS_REPDIR"/error.*
  fi
  if [[ -n $tune ]]; then
    bs_autotune concurrency "$tune" "$threshold" bs_ipfs_round
  else
    bs_ipfs_pool "$op" "$objects" "$conc" "$size"
  fi
  bs_ops_series
  if ((BS_FAILED_OPS > 0)); then
    ok=false error="$BS_FAILED_OPS of $((BS_OPS + BS_FAILED_OPS)) requests failed; $BS_ERROR"
  elif [[ -n $BS_ERROR ]]; then
    ok=false error=$BS_ERROR
  fi
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$BS_BYTES" "$BS_OPS"
}

# bs_ipfs_http_url: BS_IPFS_HTTP, the RPC API's http(s) URL, from its multiaddr (bs_ipfs_target_check).
bs_ipfs_http_url() {
  local re='^/(ip4|ip6|dns|dns4|dns6)/([^/]+)/tcp/([0-9]+)(/https|/tls/http)?/?$' host
  if [[ ! $BS_IPFS_API =~ $re ]]; then bs_fail "curl cannot reach the Kubo RPC API at $BS_IPFS_API"; fi
  host=${BASH_REMATCH[2]}
  if [[ ${BASH_REMATCH[1]} == ip6 ]]; then host=[$host]; fi
  if [[ -n ${BASH_REMATCH[4]} ]]; then BS_IPFS_HTTP=https://$host:${BASH_REMATCH[3]}; else BS_IPFS_HTTP=http://$host:${BASH_REMATCH[3]}; fi
}

# bs_ipfs_round ROUND CONCURRENCY: one autotune round of the calling bs_ipfs_case's case (its locals); a
# put's later rounds add new payloads (untimed) — the node would deduplicate the same bytes — and keep the
# earlier rounds' CIDs for cleanup.
bs_ipfs_round() {
  local i f
  if (($1 > 0)) && [[ $op == put ]]; then
    for f in "$BS_REPDIR"/cid/[0-9]*; do
      if [[ -e $f ]]; then mv -- "$f" "$BS_REPDIR/cid/round$1.${f##*/}"; fi
    done
    for ((i = 0; i < objects; i++)); do bs_data "$BS_REPDIR/data/obj-$i" "$size" "$data"; done
  fi
  bs_ipfs_pool "$op" "$objects" "$2" "$size"
}

# bs_ipfs_cid VAR INDEX: the CID `add` answered for object INDEX (its JSON in cid/INDEX).
bs_ipfs_cid() {
  local json=
  if [[ -s $BS_REPDIR/cid/$2 ]]; then json=$(<"$BS_REPDIR/cid/$2"); fi
  if [[ $json =~ \"Hash\":\"([^\"]+)\" ]]; then printf -v "$1" '%s' "${BASH_REMATCH[1]}"; else printf -v "$1" ''; fi
}

# bs_ipfs_pool OP OBJECTS CONCURRENCY SIZE: the repetition's requests through one shared queue, timed; sets
# BS_T0, BS_T1 and the pool's totals (bs_pool_stats).
bs_ipfs_pool() {
  bs_curl_queues "$3"
  bs_curl_pool "$BS_CURL_QUEUES" bs_ipfs_queue "$@"
  bs_ops_end
  bs_pool_stats "$BS_CURL_QUEUES"
}

# bs_ipfs_queue QUEUE OP OBJECTS CONCURRENCY SIZE: objects QUEUE, QUEUE + BS_CURL_QUEUES, … in one curl process
# that keeps its share of CONCURRENCY in flight. put: POST /api/v0/add (multipart form), its JSON answer in
# cid/INDEX; get: POST /api/v0/cat?arg=CID.
bs_ipfs_queue() {
  local q=$1 op=$2 objects=$3 conc=$4 size=$5 i cid file slots
  bs_curl_slots slots "$conc" "$q"
  bs_curl_begin "$q" "$slots"
  for ((i = q; i < objects; i += BS_CURL_QUEUES)); do
    case $op in
      put)
        file=$BS_REPDIR/data/obj-$i
        file=${file//\\/\\\\}
        bs_curl_add "$size" "url=$BS_IPFS_HTTP/api/v0/add?$BS_IPFS_ADDQ" "form=file=@\"${file//\"/\\\"}\"" \
          "output=$BS_REPDIR/cid/$i"
        ;;
      get)
        bs_ipfs_cid cid "$i"
        bs_curl_add "$size" "url=$BS_IPFS_HTTP/api/v0/cat?arg=$cid" request=POST output=/dev/null
        ;;
      *) bs_fail "unknown IPFS operation $op" ;;
    esac
  done
  bs_curl_run
}

# Removes what the repetition added; runs when the repetition ends, also after Ctrl-C. Never ipfs repo gc:
# the node may be the user's, and gc would collect every unpinned block of it.
bs_ipfs_cleanup() {
  local cid i err roots=() blocks=() unpin=()
  mapfile -t roots < <(cat -- "$BS_REPDIR"/cid/* 2>/dev/null | grep -o '"Hash":"[^"]*"' | cut -d'"' -f4 | sort -u)
  if ((${#roots[@]} == 0)); then return 0; fi
  # 1. The blocks to remove, listed while still pinned.
  if [[ $BS_IPFS_CLEANUP == remove ]]; then
    printf '%s\n' "${roots[@]}" >"$BS_REPDIR/blocks"
    mkdir -p -- "$BS_REPDIR/dir"
    for ((i = 0; i < ${#roots[@]}; i += 500)); do
      if ! bs_ipfs_blocks "${roots[@]:i:500}"; then
        for cid in "${roots[@]:i:500}"; do bs_ipfs_blocks "$cid" || bs_log "could not list the blocks of $cid"; done
      fi
    done
  fi
  # 2. Unpin what the repetition pinned, but no CID that was pinned before it.
  # 500 at a time; one by one when a batch fails (one CID unpinned meanwhile fails the whole batch).
  if [[ $BS_IPFS_PIN == true ]]; then
    for cid in "${roots[@]}"; do
      if grep -qxF -- "$cid" "$BS_REPDIR/pins.before" 2>/dev/null; then continue; fi
      unpin+=("$cid")
    done
    for ((i = 0; i < ${#unpin[@]}; i += 500)); do
      if ! bs_ipfs pin rm -- "${unpin[@]:i:500}" >/dev/null 2>&1; then
        for cid in "${unpin[@]:i:500}"; do bs_ipfs pin rm -- "$cid" >/dev/null 2>&1 || bs_log "could not unpin $cid"; done
      fi
    done
  fi
  # 3. Remove exactly those blocks. Missing ones are fine (--force); Kubo refuses a still-pinned one, which stays.
  if [[ $BS_IPFS_CLEANUP != remove ]]; then return 0; fi
  mapfile -t blocks < <(sort -u -- "$BS_REPDIR/blocks")
  for ((i = 0; i < ${#blocks[@]}; i += 500)); do
    if ! err=$(bs_ipfs block rm --force -- "${blocks[@]:i:500}" 2>&1 >/dev/null); then
      err=$(grep -v -e ': pinned' -e '^Error: some blocks not removed$' <<<"$err" || true)
      if [[ -n $err ]]; then bs_log "ipfs block rm: ${err%%$'\n'*}"; fi
    fi
  done
}

# bs_ipfs_blocks CID...: adds the blocks of these CIDs to $BS_REPDIR/blocks (offline: nothing is fetched):
# every block below each (refs -r), and the directory block ipfs add stores besides the file,
# {Links: [{Hash: CID, Name: CID, Tsize: its size}], Data: UnixFS directory}, whose CID dag put of that
# node tells (it is there already).
bs_ipfs_blocks() {
  local cid size n=0 dirs=()
  bs_ipfs --offline refs -r -u -- "$@" >>"$BS_REPDIR/blocks" 2>/dev/null || return 1
  while read -r cid size; do
    printf '{"Data":{"/":{"bytes":"CAE"}},"Links":[{"Hash":{"/":"%s"},"Name":"%s","Tsize":%s}]}' \
      "$cid" "$cid" "$size" >"$BS_REPDIR/dir/$n.json"
    dirs+=("$BS_REPDIR/dir/$n.json")
    n=$((n + 1))
  done < <(bs_ipfs --offline --enc=json dag stat --progress=false -- "$@" 2>/dev/null |
    grep -o '"Cid":"[^"]*","Size":[0-9]*' | sed 's/^"Cid":"\([^"]*\)","Size":/\1 /')
  if ((n != $#)); then return 1; fi
  bs_ipfs dag put --store-codec=dag-pb --input-codec=dag-json -- "${dirs[@]}" >>"$BS_REPDIR/blocks" 2>/dev/null
}
