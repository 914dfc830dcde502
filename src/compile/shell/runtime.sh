# shellcheck shell=bash
# shellcheck disable=SC2034 # some of its variables are used only by lifecycle.sh and the target kinds' .sh files
# Part of every compiled benchspec.sh (src/compile/shell/script.ts assembles it). This header, up to the
# first blank line, is not copied into the script.

BS_RUN_ID=
BS_FAILURES=0
BS_CHILD=
BS_STATE=
BS_CLEAN=()
BS_RELEASE=()
BS_LATENCY=
BS_JOBS=
BS_ROW=
BS_REP_CLEANUP=
# The timed window of the last pool, µs since the epoch (bs_pool, bs_ops_end).
BS_T0=
BS_T1=
# The worker number while a pool worker has not passed the start barrier (bs_barrier_wait, bs_curl_exec).
BS_GATE=
# The options of the request a worker's first curl opens its connection with (bs_curl_exec).
BS_CURL_WARMUP=()
# A worker's current list of transfers and how many it has begun (bs_curl_begin); how its last curl ended.
BS_CURL_LIST=
BS_CURL_N=0
BS_CURL_END=
BS_CURL_RC=
# Where the current case's target is, per kind; the libraries of the engines a spec uses read some of them.
# shellcheck disable=SC2034
declare BS_DIR='' BS_DEVICE='' BS_HERE=''
# shellcheck disable=SC2034
declare -A BS_TDIR=() BS_TDEV=() BS_TURL=() BS_TBUCKET=() BS_TREGION=() BS_TAPI=()
# The current case's target-steps function and idle seconds (bs_run_case); what each steps function came to.
BS_STEPS=-
BS_IDLE=0
declare -A BS_STEPS_DONE=()
# Config lines curl gets in place of placeholders (bs_curl_secret, bs_curl_config): credentials, never in a file.
declare -A BS_CURL_SECRETS=()

bs_log() { printf 'benchspec: %s\n' "$*" >&2; }
bs_die() {
  bs_log "$*"
  exit 1
}

# Stops the current repetition with an error message for its result row.
bs_fail() {
  printf '%s\n' "$*" >"$BS_REPDIR/error"
  bs_log "$BS_CASE: $*"
  exit 1
}

bs_require_tools() {
  local tool missing=()
  for tool in "$@"; do
    command -v -- "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if ((${#missing[@]} > 0)); then
    bs_log "missing required tools: ${missing[*]}"
    bs_log "install them (dd: coreutils, fio: fio, aws: awscli, ipfs: kubo, curl: curl, awk: mawk or gawk) and run again"
    exit 127
  fi
}

# bs_json VAR TEXT: TEXT as a JSON string. The one JSON-escaping helper: every string in a row that is not
# fixed at compile time goes through it.
bs_json() {
  local s=$2 b=$'\\' q='"' ctl
  s=${s//"$b"/"$b$b"}
  s=${s//"$q"/"$b$q"}
  s=${s//$'\n'/"$b"n}
  s=${s//$'\r'/"$b"r}
  s=${s//$'\t'/"$b"t}
  ctl=$(printf '[\001-\037\177]')
  s=${s//$ctl/ }
  printf -v "$1" '"%s"' "$s"
}

bs_is_number() { [[ $1 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# bs_now VAR: microseconds since the epoch.
bs_now() { printf -v "$1" '%s' "${EPOCHREALTIME//[!0-9]/}"; }

# bs_iso VAR MICROSECONDS: ISO 8601 in UTC.
bs_iso() {
  local s=$(($2 / 1000000)) us=$(($2 % 1000000)) day
  day=$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%S)
  printf -v "$1" '%s.%06dZ' "$day" "$us"
}

# bs_first_error VAR FILE: the first line of a tool's error output, for a row's "error".
bs_first_error() {
  local line=
  if [[ -s $2 ]]; then IFS= read -r line <"$2" || true; fi
  printf -v "$1" '%s' "${line:0:500}"
}

# bs_data FILE SIZE MODE: a payload file. random: shred's generator (fast, incompressible, different on every
# call, so every repetition writes unique data); zero; compressible:P: P% zeros in every 1 MiB block.
bs_data() {
  local file=$1 size=$2 mode=$3
  : >"$file"
  case $mode in
    random) if ((size > 0)); then shred -n 1 -s "$size" -- "$file"; fi ;;
    zero) head -c "$size" /dev/zero >"$file" ;;
    compressible:*) bs_data_compressible "$file" "$size" "${mode#compressible:}" ;;
    *) bs_die "unknown data mode $mode" ;;
  esac
}

bs_data_compressible() {
  local file=$1 size=$2 pct=$3 left n r
  local pool=$file.pool
  : >"$pool"
  if ((size > 0)); then shred -n 1 -s "$size" -- "$pool"; fi
  left=$size
  {
    while ((left > 0)); do
      n=$((left < 1048576 ? left : 1048576))
      r=$((n - n * pct / 100))
      if ((r > 0)); then head -c "$r" <&3; fi
      if ((n > r)); then head -c "$((n - r))" /dev/zero; fi
      left=$((left - n))
    done
  } 3<"$pool" >"$file"
  rm -f -- "$pool"
}

# The start barrier: workers block reading a FIFO until the parent, once all of them are waiting, closes it.
bs_barrier_init() {
  BS_BARRIER=$BS_REPDIR/barrier
  BS_BARRIER_N=$1
  rm -rf -- "$BS_BARRIER"
  mkdir -- "$BS_BARRIER"
  mkfifo -- "$BS_BARRIER/go"
  # What a worker's first curl copies into its ready file (bs_curl_exec).
  printf '1\n' >"$BS_BARRIER/one"
  # Read-write open never blocks (Linux): the FIFO has a writer before any worker opens it.
  exec 4<>"$BS_BARRIER/go"
}

# In a worker: announce readiness, then wait for the release (once: nothing when already past it).
bs_barrier_wait() {
  if [[ -z $BS_GATE ]]; then return 0; fi
  exec 3<"$BS_BARRIER/go"
  : >"$BS_BARRIER/ready.$BS_GATE"
  read -r -u 3 _ || true
  exec 3<&-
  BS_GATE=
}

# In the parent: wait until every worker is waiting, then release them all at once; sets BS_T0.
bs_barrier_release() {
  local ready f waited=0
  while :; do
    ready=0
    for f in "$BS_BARRIER"/ready.*; do
      if [[ -e $f ]]; then ready=$((ready + 1)); fi
    done
    if ((ready >= BS_BARRIER_N)); then break; fi
    waited=$((waited + 1))
    if ((waited > 12000)); then bs_fail "workers did not reach the start barrier within 60 s"; fi
    sleep 0.005
  done
  bs_now BS_T0
  # For the workers that go on for a duration: when it began.
  printf '%s\n' "$BS_T0" >"$BS_BARRIER/t0"
  exec 4>&-
}

# bs_pool_worker before|after WORKER FN ARGS...: one worker of a pool, in its own process: runs
# "FN WORKER ARGS..." after passing the barrier, or lets FN pass it (bs_curl_pool).
bs_pool_worker() {
  local when=$1 w=$2 fn=$3
  shift 3
  # The parent must hold the FIFO's only writer: its close is the release.
  exec 4>&-
  BS_GATE=$w
  if [[ $when == before ]]; then bs_barrier_wait; fi
  "$fn" "$w" "$@"
  bs_barrier_wait
}

# bs_pool N FN ARGS...: runs "FN WORKER ARGS..." in N background workers started together behind the
# barrier. Sets BS_T0 (release), BS_T1 (last exit), BS_POOL_RC (exit status per worker).
bs_pool() { bs_pool_run before "$@"; }

bs_pool_run() {
  local when=$1 n=$2 w pid rc
  shift 2
  local pids=()
  bs_barrier_init "$n"
  for ((w = 0; w < n; w++)); do
    bs_pool_worker "$when" "$w" "$@" &
    pids+=("$!")
  done
  bs_barrier_release
  BS_POOL_RC=()
  for pid in "${pids[@]}"; do
    rc=0
    wait "$pid" || rc=$?
    BS_POOL_RC+=("$rc")
  done
  bs_now BS_T1
}

# ---------- timed transfers through long-lived curl processes (the S3 and IPFS engines) ----------
# A CLI process per request would time the CLI's start-up, not the store (hundreds of ms of Python for aws).
# Instead a repetition's requests go to ONE curl process (a config file, -K) as one shared queue: curl keeps
# `concurrency` transfers in flight (--parallel-max) over kept-alive connections, each next request taken by
# whichever connection is free, as benchspec run's requests in flight take the next operation; its -w line
# after each transfer gives that transfer's own time. Fixed per-worker lists (one sequential curl per worker)
# lost 15-30 % of small-object rates to their idle tails: workers finished tens of ms apart while the others
# had nothing left to take. curl runs at most 300 transfers at once, so a larger concurrency is split over
# several curl processes, each a queue of its share (bs_curl_queues).
# curl has no wall-clock timestamp per transfer, so a queued op's own end is not known: its record ends at
# its list's end (curl's exit) and starts its time_total before; the latencies are exact and the window's
# end is the last transfer's, which is all the row needs.
# The window runs from the start barrier's release to the last list's end, so any gap between transfers
# counts against the store, never for it. Nothing but curl may run in it: the curl is started, and its
# connections opened, before the release (bs_curl_pool, bs_curl_exec), and the ops are recorded after the
# pool. Starting curls after the release spread their first requests over the window (the last began 200 ms
# in, at 32 workers on 2 CPUs), and an awk per list as its curl ended took CPU from the transfers still
# timing: 4 KiB GETs at concurrency 32 came out at half of benchspec run's rate.

# The most transfers one curl runs at once (curl's own limit on --parallel-max).
BS_CURL_MAX=300

# bs_curl_queues N: BS_CURL_QUEUES, the curl processes that keep N transfers in flight.
bs_curl_queues() { BS_CURL_QUEUES=$((($1 + BS_CURL_MAX - 1) / BS_CURL_MAX)); }

# bs_curl_slots VAR N QUEUE: how many of the N transfers in flight queue QUEUE (of BS_CURL_QUEUES) runs.
bs_curl_slots() {
  printf -v "$1" '%s' "$(($2 / BS_CURL_QUEUES + ($3 < $2 % BS_CURL_QUEUES ? 1 : 0)))"
}

# bs_curl_str VAR TEXT: TEXT as a double-quoted curl config value.
bs_curl_str() {
  local s=$2 b=$'\\' q='"'
  s=${s//"$b"/"$b$b"}
  s=${s//"$q"/"$b$q"}
  s=${s//$'\n'/"$b"n}
  s=${s//$'\r'/"$b"r}
  s=${s//$'\t'/"$b"t}
  printf -v "$1" '"%s"' "$s"
}

# bs_urlencode VAR TEXT [KEEP]: TEXT percent-encoded as SigV4 signs it: all but A-Z a-z 0-9 . _ ~ - and the
# characters in KEEP (a bracket expression's contents, e.g. / for a path).
bs_urlencode() {
  local LC_ALL=C s=$2 keep=${3:-} out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [[ $c == [A-Za-z0-9._~-] || (-n $keep && $c == ["$keep"]) ]]; then
      out+=$c
    else
      printf -v c '%%%02X' "'$c"
      out+=$c
    fi
  done
  printf -v "$1" '%s' "$out"
}

# bs_curl_options FILE OPTION=VALUE|FLAG...: appends options to a curl config file.
bs_curl_options() {
  local f=$1 o value
  shift
  for o in "$@"; do
    if [[ $o == *=* ]]; then
      bs_curl_str value "${o#*=}"
      printf '%s = %s\n' "${o%%=*}" "$value"
    else
      printf '%s\n' "$o"
    fi
  done >>"$f"
}

# bs_curl_begin WORKER [SLOTS]: starts a new list of transfers of worker WORKER (BS_CURL_LIST, curl.WORKER.N).
# With SLOTS, the list is a queue: curl runs SLOTS of its transfers at once, each on its own connection
# (parallel-immediate: a new transfer opens one rather than waiting to see if it could share one), the next
# one starting as soon as one ends; without, one after another.
bs_curl_begin() {
  BS_CURL_N=$((BS_CURL_N + 1))
  BS_CURL_LIST=$BS_REPDIR/curl.$1.$BS_CURL_N
  BS_CURL_SLOTS=${2:-0}
  BS_CURL_COUNT=0
  : >"$BS_CURL_LIST"
  if ((BS_CURL_SLOTS > 0)); then
    bs_curl_options "$BS_CURL_LIST" parallel "parallel-max=$BS_CURL_SLOTS" parallel-immediate
  fi
}

# bs_curl_add BYTES OPTION=VALUE|FLAG...: one transfer of the list, with BS_CURL_COMMON's options
# (credentials among them as a placeholder only: bs_curl_config puts them in on the way to curl).
# Its -w line is "HTTP-CODE TIME-TOTAL EXIT-CODE BYTES URL ERROR-MESSAGE" (BYTES: what the op moves when it
# succeeds; a queue's lines come in the order its transfers end), unless its options give a write-out.
bs_curl_add() {
  local bytes=$1
  shift
  if ((BS_CURL_COUNT > 0)); then printf 'next\n' >>"$BS_CURL_LIST"; fi
  bs_curl_options "$BS_CURL_LIST" \
    "write-out=%{http_code} %{time_total} %{exitcode} $bytes %{url_effective} %{errormsg}"$'\n' \
    "$@" "${BS_CURL_COMMON[@]}"
  BS_CURL_COUNT=$((BS_CURL_COUNT + 1))
}

# bs_curl_config FILE: FILE as curl reads it, through a pipe (bash's <(…)), each line that BS_CURL_SECRETS
# has as a key (a placeholder bs_curl_secret wrote) replaced by its value: credentials reach curl only through
# the pipe, from a shell variable — never in a file (a run killed with kill -9 leaves none), on a command
# line or in an environment.
bs_curl_config() {
  local line
  if ((${#BS_CURL_SECRETS[@]} == 0)); then
    cat -- "$1"
    return
  fi
  while IFS= read -r line; do
    if [[ -n ${BS_CURL_SECRETS[$line]+set} ]]; then line=${BS_CURL_SECRETS[$line]}; fi
    printf '%s\n' "$line"
  done <"$1"
}

# bs_curl_secret VAR OPTION VALUE: sets VAR to OPTION=<placeholder> for BS_CURL_COMMON, and keeps the
# config line with VALUE for bs_curl_config to put in its place.
bs_curl_secret() {
  local placeholder=@secret-${#BS_CURL_SECRETS[@]}@ quoted
  bs_curl_str quoted "$3"
  BS_CURL_SECRETS["$2 = \"$placeholder\""]="$2 = $quoted"
  printf -v "$1" '%s=%s' "$2" "$placeholder"
}

# bs_curl_exec: runs the list in one curl process, its -w lines into BS_CURL_LIST.out and its messages into
# BS_CURL_LIST.err; sets BS_CURL_RC and BS_CURL_END (when curl exited).
# A bs_curl_pool worker not yet past the barrier passes it in this curl, before the list: warm-up requests
# (BS_CURL_WARMUP's options; one per connection the list will use) open the connections, curl writes the
# worker's ready file, then reads its stdin, the barrier FIFO, until the release closes it. curl does a
# file:// transfer without returning to its other transfers, so in a queue too nothing of the list starts
# before the release (a warm-up answered meanwhile is read after it: its connection is open by then).
bs_curl_exec() {
  local f=$BS_CURL_LIST path i warm=1
  BS_CURL_RC=0
  # -q: a ~/.curlrc must not change the requests or the -w lines.
  if [[ -n $BS_GATE ]]; then
    : >"$f.gate"
    if ((BS_CURL_SLOTS > 1)); then warm=$((BS_CURL_SLOTS < BS_CURL_COUNT ? BS_CURL_SLOTS : BS_CURL_COUNT)); fi
    for ((i = 0; i < warm; i++)); do
      # Bounded well below the barrier's 60 s: a store that does not answer fails the list's requests instead.
      bs_curl_options "$f.gate" "${BS_CURL_WARMUP[@]}" "${BS_CURL_COMMON[@]}" output=/dev/null max-time=20 next
    done
    bs_urlencode path "$BS_BARRIER/one" /
    bs_curl_options "$f.gate" "url=file://$path" "output=$BS_BARRIER/ready.$BS_GATE" next
    bs_curl_options "$f.gate" url=file:///dev/null upload-file=- next
    curl -q --no-progress-meter -sS -K <(bs_curl_config "$f.gate") -K <(bs_curl_config "$f") \
      <"$BS_BARRIER/go" >"$f.out" 2>"$f.err" ||
      BS_CURL_RC=$?
    # A curl that stopped before its gate must not hold the others back (what it did not do is recorded).
    if [[ ! -e $BS_BARRIER/ready.$BS_GATE ]]; then : >"$BS_BARRIER/ready.$BS_GATE"; fi
    BS_GATE=
  else
    curl -q --no-progress-meter -sS -K <(bs_curl_config "$f") >"$f.out" 2>"$f.err" || BS_CURL_RC=$?
  fi
  bs_now BS_CURL_END
}

# bs_curl_run: runs the list (bs_curl_exec), each transfer an op that bs_curl_pool records once every worker
# is done: an awk here would take CPU from the transfers still timing.
bs_curl_run() {
  if ((BS_CURL_COUNT == 0)); then return 0; fi
  bs_curl_exec
  printf '%s %s %s\n' "$BS_CURL_END" "$BS_CURL_RC" "$BS_CURL_COUNT" >"$BS_CURL_LIST.end"
}

# bs_curl_pool N FN ARGS...: bs_pool for workers that write their transfer lists first and pass the barrier
# inside their first curl (bs_curl_exec): neither the lists nor curl's start-up fall in the timed window.
# A worker that runs no curl passes the barrier when FN returns. The lists run by bs_curl_run are then
# recorded in ops.WORKER, in the order each worker ran them (bs_curl_record).
bs_curl_pool() {
  local n=$1 w k
  rm -f -- "$BS_REPDIR"/curl.*
  bs_pool_run after "$@"
  for ((w = 0; w < n; w++)); do
    for ((k = 1; ; k++)); do
      if [[ ! -e $BS_REPDIR/curl.$w.$k ]]; then break; fi
      if [[ -e $BS_REPDIR/curl.$w.$k.end ]]; then bs_curl_record "$w" "$BS_REPDIR/curl.$w.$k"; fi
    done
  done
}

# bs_curl_record WORKER LIST: every transfer of a list bs_curl_run ran as an op in ops.WORKER ("worker start
# end bytes ok"): ok when curl succeeded with an HTTP 2xx; each ends at the list's end (see above). A
# transfer curl never reported (it stopped early) is a failed op. The worker's first error goes to
# error.WORKER.
bs_curl_record() {
  local w=$1 f=$2 t1 rc count haserr=0
  read -r t1 rc count <"$f.end"
  if [[ -s $BS_REPDIR/error.$w ]]; then haserr=1; fi
  awk -v w="$w" -v t1="$t1" -v rc="$rc" -v count="$count" -v haserr="$haserr" -v ops="$BS_REPDIR/ops.$w" \
    -v errfile="$BS_REPDIR/error.$w" -v stderrfile="$2.err" '
    {
      got++
      m = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* ?/, "", m)
      start = t1 - int($2 * 1e6 + 0.5)
      if ($3 == 0 && $1 ~ /^2/) {
        printf "%s %.0f %.0f %s 1\n", w, start, t1, $4 >> ops
      } else {
        printf "%s %.0f %.0f 0 0\n", w, start, t1 >> ops
        if (err == "") err = ($3 != 0 ? "curl: " m " (exit " $3 ")" : "HTTP status " $1) " for " $5
      }
    }
    END {
      for (i = got + 1; i <= count; i++) {
        printf "%s %.0f %.0f 0 0\n", w, t1, t1 >> ops
        if (err == "") {
          line = ""; getline line < stderrfile
          err = "curl stopped before all its transfers (exit " rc ")" (line != "" ? ": " line : "")
        }
      }
      if (err != "" && !haserr) print substr(err, 1, 500) > errfile
    }' "$f.out"
}

# bs_ops_end: BS_T1 from the last op end of the pool's records, when there are any (the time workers took
# to exit is not the store's). BS_T0 stays the release: every first curl is started and connected by then
# and sends its first requests at once (bs_curl_exec), so the window holds all the time between requests,
# as benchspec run's does.
bs_ops_end() {
  local t1
  read -r t1 < <(cat -- "$BS_REPDIR"/ops.* 2>/dev/null | awk '
    NR == 1 || $3 > b { b = $3 } END { if (NR > 0) printf "%.0f\n", b }') || true
  # shellcheck disable=SC2034 # BS_T1 is for the caller (a script without object engines never reads it)
  if [[ -n $t1 ]]; then BS_T1=$t1; fi
}

# bs_job_json VAR JOB BYTES SECONDS [ERROR]: one entry of a row's "jobs".
bs_job_json() {
  local tp e=
  tp=$(awk -v b="$3" -v s="$4" 'BEGIN { printf "%.9g", (s > 0 ? b / s : 0) }')
  if [[ -n ${5:-} ]]; then
    bs_json e "$5"
    e=",\"error\":$e"
  fi
  printf -v "$1" '{"job":%s,"bytes":%s,"seconds":%s,"throughput":%s%s}' "$2" "$3" "$4" "$tp" "$e"
}

# bs_pool_stats N [WHO]: totals of a pool's ops records. Sets BS_BYTES, BS_OPS, BS_FAILED_OPS, BS_LATENCY and
# BS_ERROR (the first process's error, prefixed "WHO NUMBER: " when WHO is given). No per-process "jobs": a
# queue's processes share their operations, so none has bytes or seconds of its own (benchspec run's s3 and
# ipfs rows have none either).
bs_pool_stats() {
  local n=$1 who=${2:-} all=$BS_REPDIR/ops.all w err
  BS_ERROR=
  : >"$all"
  for ((w = 0; w < n; w++)); do
    if [[ -e $BS_REPDIR/ops.$w ]]; then cat -- "$BS_REPDIR/ops.$w" >>"$all"; fi
  done
  # shellcheck disable=SC2034 # BS_BYTES and BS_FAILED_OPS are for the caller
  read -r BS_BYTES BS_OPS BS_FAILED_OPS < <(awk '
    $5 == 1 { ok++; bytes += $4 }
    $5 != 1 { failed++ }
    END { printf "%.0f %.0f %.0f\n", bytes, ok, failed }' "$all")
  BS_LATENCY=
  if ((BS_OPS > 0)); then
    BS_LATENCY=$(awk '$5 == 1 { printf "%.9g\n", ($3 - $2) / 1e6 }' "$all" | sort -g | awk '
      function q(p,   i) { i = int(p * NR); if (i < p * NR) i++; if (i < 1) i = 1; return v[i] }
      { v[NR] = $1; sum += $1 }
      END { printf "{\"mean\":%.9g,\"p50\":%.9g,\"p90\":%.9g,\"p99\":%.9g,\"p99.9\":%.9g}", sum / NR, q(0.5), q(0.9), q(0.99), q(0.999) }')
  fi
  BS_JOBS=
  for ((w = 0; w < n; w++)); do
    err=
    if [[ -s $BS_REPDIR/error.$w ]]; then bs_first_error err "$BS_REPDIR/error.$w"; fi
    if [[ -z $err && ${BS_POOL_RC[w]:-0} != 0 ]]; then
      err="${who:-process} $w exited with status ${BS_POOL_RC[w]}"
    elif [[ -n $err && -n $who ]]; then
      err="$who $w: $err"
    fi
    if [[ -n $err ]]; then
      # shellcheck disable=SC2034 # for the caller (a script without object engines never reads it)
      BS_ERROR=$err
      break
    fi
  done
}

# bs_emit OK ERROR T0 T1 BYTES OPS [SECONDS]: prints the repetition's result row (latency and jobs from
# BS_LATENCY and BS_JOBS). SECONDS defaults to T1 - T0; throughput and IOPS are computed here.
bs_emit() {
  local ok=$1 error=$2 t0=$3 t1=$4 bytes=$5 ops=$6 seconds=${7:-} v nums tp iops start end e row
  for v in "$t0" "$t1" "$bytes" "$ops" ${seconds:+"$seconds"}; do
    if ! bs_is_number "$v"; then
      ok=false error="not a number in the measurement: $v${error:+; $error}"
      bytes=0 ops=0 seconds=0
      break
    fi
  done
  nums=$(awk -v t0="$t0" -v t1="$t1" -v b="$bytes" -v o="$ops" -v s="$seconds" 'BEGIN {
    if (s == "") s = (t1 - t0) / 1e6
    printf "%.0f %.0f %.9g %.9g %.9g\n", b, o, s, (s > 0 ? b / s : 0), (s > 0 ? o / s : 0) }')
  read -r bytes ops seconds tp iops <<<"$nums"
  for v in "$seconds" "$tp" "$iops"; do
    if ! bs_is_number "$v"; then
      ok=false error="not a number in the measurement: $v${error:+; $error}"
      seconds=0 tp=0 iops=0
      break
    fi
  done
  bs_iso start "$t0"
  bs_iso end "$t1"
  row='{"v":1,"source":"shell",'"$BS_ROW_SPEC,$BS_META"',"repetition":'"$BS_REP"',"warmup":'"$BS_WARM"',"ok":'"$ok"
  if [[ -n $error ]]; then
    bs_json e "$error"
    row+=',"error":'"$e"
  fi
  row+=',"start":"'"$start"'","end":"'"$end"'","bytes":'"$bytes"',"ops":'"$ops"',"seconds":'"$seconds"
  row+=',"throughput":'"$tp"',"iops":'"$iops"
  if [[ -n $BS_LATENCY ]]; then row+=',"latency":'"$BS_LATENCY"; fi
  if [[ -n $BS_JOBS ]]; then row+=',"jobs":'"$BS_JOBS"; fi
  printf '%s}\n' "$row"
  BS_ROW=$ok
}

# ---------- one repetition runs in a child process, in its own process group ----------

bs_child() {
  set -E
  trap 'bs_child_err "$?" "$BASH_COMMAND"' ERR
  trap 'bs_child_exit' EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT
  "${BS_TARGET}_enter"
  "$BS_CASE_FN"
  case $BS_ROW in
    true) exit 0 ;;
    false) exit 3 ;;
    *) bs_fail "the case printed no result row" ;;
  esac
}

bs_child_err() {
  if [[ ! -s $BS_REPDIR/error ]]; then
    printf 'command failed with exit status %s: %s\n' "$1" "$2" >"$BS_REPDIR/error"
  fi
}

bs_child_exit() {
  local status=$? stat pgrp jobs
  set +e
  trap - ERR
  trap '' TERM INT
  # Stop what the repetition still runs (workers, their tools) before cleaning up after it. Only when this
  # process leads its own group, which bs_rep arranges (set -m); otherwise only its direct jobs.
  read -r stat <"/proc/$BASHPID/stat"
  stat=${stat##*) }
  read -r _ _ pgrp _ <<<"$stat"
  if [[ $pgrp == "$BASHPID" ]]; then
    kill -TERM 0 2>/dev/null
  else
    mapfile -t jobs < <(jobs -p)
    if ((${#jobs[@]} > 0)); then kill -TERM "${jobs[@]}" 2>/dev/null; fi
  fi
  wait 2>/dev/null
  if [[ -n $BS_REP_CLEANUP ]]; then "$BS_REP_CLEANUP"; fi
  exit "$status"
}

# bs_rep REP WARMUP: runs one repetition of the current case, after its idle; prints a failure row if the
# child could not, or if its workload's purge or preconditioning on this target failed.
bs_rep() {
  BS_REP=$1 BS_WARM=$2
  local status=0 t0 t1 error=''
  # shellcheck disable=SC2034 # names the repetition in S3 keys and fio log directories
  if [[ $BS_WARM == true ]]; then BS_REPNAME=w$BS_REP; else BS_REPNAME=r$BS_REP; fi
  BS_REPDIR=$BS_STATE/rep
  rm -rf -- "$BS_REPDIR"
  mkdir -- "$BS_REPDIR"
  if [[ $BS_WARM == true ]]; then
    bs_log "[$((BS_CASE_INDEX + 1))/$BS_CASES] $BS_CASE: warm-up $BS_REP"
  else
    bs_log "[$((BS_CASE_INDEX + 1))/$BS_CASES] $BS_CASE: repetition $BS_REP"
  fi
  if [[ -n ${BS_STEPS_DONE[$BS_STEPS]:-} ]]; then
    BS_FAILURES=$((BS_FAILURES + 1))
    bs_now t0
    BS_LATENCY='' BS_JOBS=''
    bs_emit false "${BS_STEPS_DONE[$BS_STEPS]}" "$t0" "$t0" 0 0
    return
  fi
  if [[ $BS_IDLE != 0 ]]; then
    bs_log "$BS_CASE: idle ${BS_IDLE}s"
    sleep "$BS_IDLE"
  fi
  bs_now t0
  set -m
  bs_child </dev/null &
  BS_CHILD=$!
  set +m
  wait "$BS_CHILD" || status=$?
  BS_CHILD=
  case $status in
    0) ;;
    3) BS_FAILURES=$((BS_FAILURES + 1)) ;;
    *)
      BS_FAILURES=$((BS_FAILURES + 1))
      bs_now t1
      bs_first_error error "$BS_REPDIR/error"
      BS_LATENCY='' BS_JOBS=''
      bs_emit false "${error:-the repetition failed with exit status $status}" "$t0" "$t1" 0 0
      ;;
  esac
}

# bs_steps: the current case's workload's purge and preconditioning on its target (the function BS_STEPS),
# once per workload and target, in a child process group like a repetition. What failed stays in
# BS_STEPS_DONE[BS_STEPS], and every repetition of the workload's cases on that target fails with it.
bs_steps() {
  local status=0 error=''
  if [[ -n ${BS_STEPS_DONE[$BS_STEPS]+set} ]]; then return 0; fi
  BS_REPDIR=$BS_STATE/rep
  rm -rf -- "$BS_REPDIR"
  mkdir -- "$BS_REPDIR"
  set -m
  bs_steps_child </dev/null &
  BS_CHILD=$!
  set +m
  wait "$BS_CHILD" || status=$?
  BS_CHILD=
  if ((status != 0)); then
    bs_first_error error "$BS_REPDIR/error"
    error=${error:-the purge or preconditioning failed with exit status $status}
  fi
  BS_STEPS_DONE[$BS_STEPS]=$error
}

bs_steps_child() {
  set -E
  trap 'bs_child_err "$?" "$BASH_COMMAND"' ERR
  trap 'bs_child_exit' EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT
  "${BS_TARGET}_enter"
  "$BS_STEPS"
}

# bs_run_case INDEX ID TARGET META REPEAT WARMUP STEPS IDLE: STEPS is the function that purges and
# preconditions the case's workload on its target ("-": none), IDLE the seconds before each repetition.
bs_run_case() {
  BS_CASE_INDEX=$1 BS_CASE=$2 BS_TARGET=$3 BS_META=$4 BS_STEPS=$7 BS_IDLE=$8
  BS_CASE_FN=bs_case_$1
  local repeat=$5 warmup=$6 rep
  BS_CASESTATE=$BS_STATE/case
  rm -rf -- "$BS_CASESTATE"
  mkdir -- "$BS_CASESTATE"
  if [[ $BS_STEPS != - ]]; then bs_steps; fi
  for ((rep = 1; rep <= warmup; rep++)); do bs_rep "$rep" true; done
  for ((rep = 1; rep <= repeat; rep++)); do bs_rep "$rep" false; done
  "${BS_TARGET}_leave"
}
