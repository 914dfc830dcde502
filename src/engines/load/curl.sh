# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_LATENCY and BS_JOBS are set here for the runtime (runtime.sh, bs_emit) to read
# Part of a compiled benchspec.sh whose plan has cases of an engine that times requests through curl (s3,
# ipfs): written once, before those engines' own functions (src/compile/shell/script.ts). This header, up
# to the first blank line, is not copied into the script.

# The options of the request a worker's first curl opens its connection with (bs_curl_exec).
BS_CURL_WARMUP=()
# A worker's current list of transfers and how many it has begun (bs_curl_begin); how its last curl ended.
BS_CURL_LIST=
BS_CURL_N=0
BS_CURL_END=
BS_CURL_RC=
# Config lines curl gets in place of placeholders (bs_curl_secret, bs_curl_config): credentials, never in a file.
declare -A BS_CURL_SECRETS=()

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
# end is the last transfer's, which is all the row needs. A case with a time series stamps each transfer's
# -w line as it arrives (bs_curl_to), and its records end then.
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
# Its -w line is "HTTP-CODE TIME-TOTAL EXIT-CODE BYTES OP URL ERROR-MESSAGE" (BYTES: what the op moves when
# it succeeds; OP: BS_CURL_OP, the kind of op in a mixed load, else -; a queue's lines come in the order its
# transfers end), unless its options give a write-out.
bs_curl_add() {
  local bytes=$1
  shift
  if ((BS_CURL_COUNT > 0)); then printf 'next\n' >>"$BS_CURL_LIST"; fi
  bs_curl_options "$BS_CURL_LIST" \
    "write-out=%{http_code} %{time_total} %{exitcode} $bytes ${BS_CURL_OP:--} %{url_effective} %{errormsg}"$'\n' \
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
    bs_curl_to "$f.out" -q --no-progress-meter -sS -K <(bs_curl_config "$f.gate") -K <(bs_curl_config "$f") \
      <"$BS_BARRIER/go" 2>"$f.err" ||
      BS_CURL_RC=$?
    # A curl that stopped before its gate must not hold the others back (what it did not do is recorded).
    if [[ ! -e $BS_BARRIER/ready.$BS_GATE ]]; then : >"$BS_BARRIER/ready.$BS_GATE"; fi
    BS_GATE=
  else
    bs_curl_to "$f.out" -q --no-progress-meter -sS -K <(bs_curl_config "$f") 2>"$f.err" || BS_CURL_RC=$?
  fi
  bs_now BS_CURL_END
}

# bs_curl_to OUT ARGS...: curl ARGS, its -w lines into OUT; with BS_CURL_STAMP (a list of ops of a case
# that keeps a time series, bs_curl_run), each line stamped with the wall clock as it arrives (its
# transfer's end: curl has no wall-clock write-out), curl's stdout line-buffered so that lines arrive as
# transfers end. The stamping is a bash loop beside curl, so only a sampled case pays for it.
bs_curl_to() {
  local out=$1
  shift
  if [[ -z ${BS_CURL_STAMP:-} ]]; then
    curl "$@" >"$out"
    return
  fi
  stdbuf -oL curl "$@" | bs_stamp_lines >"$out"
}

bs_stamp_lines() {
  local line
  while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME//[!0-9]/}" "$line"; done
}

# bs_curl_run: runs the list (bs_curl_exec), each transfer an op that bs_curl_pool records once every worker
# is done: an awk here would take CPU from the transfers still timing.
bs_curl_run() {
  if ((BS_CURL_COUNT == 0)); then return 0; fi
  BS_CURL_STAMP=${BS_SAMPLE_MS:+1} bs_curl_exec
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
# end bytes ok [kind]"): ok when curl succeeded with an HTTP 2xx; each ends at the list's end (see above). A
# transfer curl never reported (it stopped early) is a failed op. The worker's first error goes to
# error.WORKER.
bs_curl_record() {
  local w=$1 f=$2 t1 rc count haserr=0
  read -r t1 rc count <"$f.end"
  if [[ -s $BS_REPDIR/error.$w ]]; then haserr=1; fi
  awk -v w="$w" -v t1="$t1" -v rc="$rc" -v count="$count" -v haserr="$haserr" -v ops="$BS_REPDIR/ops.$w" \
    -v errfile="$BS_REPDIR/error.$w" -v stderrfile="$2.err" -v stamped="${BS_SAMPLE_MS:+1}" '
    {
      got++
      # A stamped line (bs_curl_to) ends when it arrived; otherwise when the list ended.
      end = t1
      if (stamped) { end = $1; $0 = substr($0, index($0, " ") + 1) }
      m = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* [^ ]* ?/, "", m)
      start = end - int($2 * 1e6 + 0.5)
      kind = $5 == "-" ? "" : " " $5
      if ($3 == 0 && $1 ~ /^2/) {
        printf "%s %.0f %.0f %s 1%s\n", w, start, end, $4, kind >> ops
      } else {
        printf "%s %.0f %.0f 0 0%s\n", w, start, end, kind >> ops
        if (err == "") err = ($3 != 0 ? "curl: " m " (exit " $3 ")" : "HTTP status " $1) " for " $6
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

# bs_latency_bins < RECORDS: the successful ops' latencies as a row's "latencyBins" (bs_bins_json), each
# value cut to the lowest of its HdrHistogram bucket (bs_bins_cut), so that histograms of them pool exactly
# as those of benchspec run do, in a few hundred entries however many ops there were.
bs_latency_bins() {
  awk '$5 == 1 { printf "%.0f 1\n", ($3 - $2) * 1000 }' | bs_bins_cut | bs_bins_json
}

# bs_ops_latency FILE [KIND]: the latency percentiles (a row's "latency") of the successful ops recorded in
# FILE (of that kind): the exact order statistics, as benchspec run's (src/engines/load/measure.ts, percentiles).
bs_ops_latency() {
  awk -v kind="${2:-}" '$5 == 1 && (kind == "" || $6 == kind) { printf "%.9g\n", ($3 - $2) / 1e6 }' "$1" |
    sort -g | awk '
      function q(p,   i) { i = int(p * NR); if (i < p * NR) i++; if (i < 1) i = 1; return v[i] }
      { v[NR] = $1; sum += $1 }
      END { printf "{\"mean\":%.9g,\"p50\":%.9g,\"p90\":%.9g,\"p99\":%.9g,\"p99.9\":%.9g}", sum / NR, q(0.5), q(0.9), q(0.99), q(0.999) }'
}

# bs_ops_by_kind FILE: BS_BY_OP, the row's "byOp" of a load of several kinds of op (the records' sixth
# field): each kind's successful ops, their bytes, its failed ops and its latency, as benchspec run's
# (src/engines/load/measure.ts, perOperation); empty for a load of one kind.
bs_ops_by_kind() {
  local kind ops bytes errors entry kinds=0
  BS_BY_OP=
  while read -r kind ops bytes errors; do
    entry="\"$kind\":{\"ops\":$ops,\"bytes\":$bytes,\"errors\":$errors"
    if ((ops > 0)); then entry+=',"latency":'"$(bs_ops_latency "$1" "$kind")"; fi
    BS_BY_OP+=${BS_BY_OP:+,}$entry'}'
    kinds=$((kinds + 1))
  done < <(awk '$6 != "" { n[$6]++; if ($5 == 1) { ok[$6]++; b[$6] += $4 } }
    END { for (k in n) printf "%s %.0f %.0f %.0f\n", k, ok[k], b[k], n[k] - ok[k] }' "$1" | LC_ALL=C sort)
  if ((kinds < 2)); then BS_BY_OP=; fi
}

# bs_pool_stats N [WHO]: totals of a pool's ops records. Sets BS_BYTES, BS_OPS, BS_FAILED_OPS, BS_LATENCY,
# BS_LATENCY_BINS, BS_BY_OP and BS_ERROR (the first process's error, prefixed "WHO NUMBER: " when WHO is given). No
# per-process "jobs": a queue's processes share their operations, so none has bytes or seconds of its own
# (benchspec run's s3 and ipfs rows have none either).
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
  BS_LATENCY='' BS_LATENCY_BINS=''
  if ((BS_OPS > 0)); then
    BS_LATENCY=$(bs_ops_latency "$all")
    BS_LATENCY_BINS=$(bs_latency_bins <"$all")
  fi
  bs_ops_by_kind "$all"
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

# bs_ops_series: with BS_SAMPLE_MS, the repetition's time series from its ops records (bs_pool_stats'
# ops.all) as benchspec run's (src/engines/load/measure.ts, series): steps of SAMPLE from the first op's
# start (or the release, if earlier) to the last op's end, each successful op's bytes and its one operation
# spread evenly over its own time; appended to BENCHSPEC_TIMESERIES, a point a line, t at each step's end.
bs_ops_series() {
  local id
  if [[ -z ${BS_SAMPLE_MS:-} || -z ${BENCHSPEC_TIMESERIES:-} || ! -s $BS_REPDIR/ops.all ]]; then return 0; fi
  bs_json id "$BS_CASE"
  awk -v t0="$BS_T0" -v step="$((BS_SAMPLE_MS * 1000))" -v id="$id" -v rep="$BS_REP" -v warm="$BS_WARM" '
    { n++; s[n] = $2; e[n] = $3; b[n] = $4; ok[n] = $5
      if (n == 1 || $2 < first) first = $2; if (n == 1 || $3 > last) last = $3 }
    function share(i, from, to,   len, lo, hi) {
      len = e[i] - s[i]
      if (len <= 0) return (s[i] >= from && s[i] <= to) ? 1 : 0
      lo = s[i] > from ? s[i] : from; hi = e[i] < to ? e[i] : to
      return hi > lo ? (hi - lo) / len : 0
    }
    END {
      if (t0 < first) first = t0; if (t0 > last) last = t0
      for (t = first; t < last; t += step) {
        to = t + step < last ? t + step : last; secs = (to - t) / 1e6
        if (secs <= 0) break
        bytes = 0; ops = 0
        for (i = 1; i <= n; i++) if (ok[i] == 1) { f = share(i, t, to); bytes += b[i] * f; ops += f }
        printf "{\"case\":%s,\"repetition\":%s,\"warmup\":%s,\"t\":%.9g,\"throughput\":%.9g,\"iops\":%.9g}\n", id, rep, warm, (to - first) / 1e6, bytes / secs, ops / secs
      }
    }' "$BS_REPDIR/ops.all" >>"$BENCHSPEC_TIMESERIES"
}

# ---------- autotune: rounds of a rising parameter until the throughput gain falls below a threshold ----------
# As benchspec run (src/engines/load/load.ts, runMeasured): each round is one timed pool (BS_T0, BS_T1,
# BS_BYTES, BS_OPS, BS_LATENCY, BS_FAILED_OPS, BS_ERROR); the rounds stop at the first that failed or gained
# less than the threshold over the one before; the repetition is the knee — the failed round, else the
# round before the last when the last did not gain enough, else the last — and the row keeps every round.
BS_AT_VALUE=() BS_AT_T0=() BS_AT_T1=() BS_AT_BYTES=() BS_AT_OPS=() BS_AT_LATENCY=() BS_AT_BINS=() BS_AT_FAILED=()
BS_AT_ERROR=() BS_AT_TP=() BS_AT_BY_OP=()

# bs_autotune PARAM VALUES THRESHOLD FN: "FN ROUND VALUE" times one pool for each value in turn (ROUND 0,
# 1, …; its records cleared before, kept as round.ROUND.ops after) until the rounds stop; then the knee's
# figures (bs_autotune_end).
bs_autotune() {
  local value round=0
  for value in $2; do
    rm -f -- "$BS_REPDIR"/ops.* "$BS_REPDIR"/error.*
    "$4" "$round" "$value"
    if [[ -e $BS_REPDIR/ops.all ]]; then mv -- "$BS_REPDIR/ops.all" "$BS_REPDIR/round.$round.ops"; fi
    round=$((round + 1))
    if ! bs_autotune_round "$value" "$3"; then break; fi
  done
  bs_autotune_end "$1" "$3"
}

# bs_autotune_round VALUE THRESHOLD: records the round just timed; fails (status 1) when the rounds stop.
bs_autotune_round() {
  local n=${#BS_AT_VALUE[@]} tp
  tp=$(awk -v b="$BS_BYTES" -v t0="$BS_T0" -v t1="$BS_T1" 'BEGIN { s = (t1 - t0) / 1e6; printf "%.17g", (s > 0 ? b / s : 0) }')
  BS_AT_VALUE+=("$1") BS_AT_T0+=("$BS_T0") BS_AT_T1+=("$BS_T1") BS_AT_BYTES+=("$BS_BYTES") BS_AT_OPS+=("$BS_OPS")
  BS_AT_LATENCY+=("$BS_LATENCY") BS_AT_BINS+=("$BS_LATENCY_BINS") BS_AT_FAILED+=("$BS_FAILED_OPS") BS_AT_ERROR+=("$BS_ERROR") BS_AT_TP+=("$tp")
  BS_AT_BY_OP+=("$BS_BY_OP")
  if ((BS_FAILED_OPS > 0)) || [[ -n $BS_ERROR ]]; then return 1; fi
  if ((n > 0)) && ! bs_autotune_gained "${BS_AT_TP[n - 1]}" "$tp" "$2"; then return 1; fi
  return 0
}

# bs_autotune_gained BEFORE AFTER THRESHOLD: whether AFTER ≥ BEFORE × (1 + THRESHOLD / 100).
bs_autotune_gained() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { exit !(b >= a * (1 + t / 100)) }'
}

# bs_autotune_end PARAM THRESHOLD: the knee's figures in BS_T0 … BS_ERROR, its records in ops.all (what
# bs_ops_series reads: the knee's series, as run's), and BS_AUTOTUNE for the row.
bs_autotune_end() {
  local n=${#BS_AT_VALUE[@]} k i rounds='' r seconds
  k=$((n - 1))
  for ((i = 0; i < n; i++)); do
    if ((BS_AT_FAILED[i] > 0)) || [[ -n ${BS_AT_ERROR[i]} ]]; then
      k=$i
      break
    fi
  done
  if ((k == n - 1 && n > 1)) && ! bs_autotune_gained "${BS_AT_TP[n - 2]}" "${BS_AT_TP[n - 1]}" "$2"; then
    k=$((n - 2))
  fi
  for ((i = 0; i < n; i++)); do
    r=$(awk -v v="${BS_AT_VALUE[i]}" -v b="${BS_AT_BYTES[i]}" -v o="${BS_AT_OPS[i]}" \
      -v t0="${BS_AT_T0[i]}" -v t1="${BS_AT_T1[i]}" 'BEGIN { s = (t1 - t0) / 1e6
      printf "{\"value\":%s,\"throughput\":%.9g,\"iops\":%.9g,\"bytes\":%.0f,\"seconds\":%.9g", v,
        (s > 0 ? b / s : 0), (s > 0 ? o / s : 0), b, s }')
    if [[ -n ${BS_AT_LATENCY[i]} ]]; then r+=',"latency":'"${BS_AT_LATENCY[i]}"; fi
    rounds+=${rounds:+,}$r'}'
  done
  BS_T0=${BS_AT_T0[k]} BS_T1=${BS_AT_T1[k]} BS_BYTES=${BS_AT_BYTES[k]} BS_OPS=${BS_AT_OPS[k]}
  BS_LATENCY=${BS_AT_LATENCY[k]} BS_LATENCY_BINS=${BS_AT_BINS[k]} BS_FAILED_OPS=${BS_AT_FAILED[k]} BS_ERROR=${BS_AT_ERROR[k]}
  BS_BY_OP=${BS_AT_BY_OP[k]}
  if [[ -e $BS_REPDIR/round.$k.ops ]]; then cp -- "$BS_REPDIR/round.$k.ops" "$BS_REPDIR/ops.all"; fi
  BS_AUTOTUNE='{"param":"'"$1"'","chosen":'"${BS_AT_VALUE[k]}"',"rounds":['"$rounds"']}'
}
