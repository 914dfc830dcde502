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
# The row's "latencyBins" (nanoseconds → count), what rows of several copies pool their percentiles by.
BS_LATENCY_BINS=
# The row's "byOp" members (bs_ops_by_kind), when the repetition's load had several kinds of op.
BS_BY_OP=
# More members of the row, ready-made (",\"targets\":[…]"), from an engine's function.
BS_ROW_EXTRA=
BS_JOBS=
# The row's "autotune" (bs_autotune_end), when the repetition tuned a parameter.
BS_AUTOTUNE=
BS_ROW=
BS_REP_CLEANUP=
# The timed window of the last pool, µs since the epoch (bs_pool, bs_ops_end).
BS_T0=
# shellcheck disable=SC2034 # read by the engines that time a pool (dd, s3, ipfs), not every script has one
BS_T1=
# The worker number while a pool worker has not passed the start barrier (bs_barrier_wait, bs_curl_exec).
BS_GATE=
# Where the current case's target is, per kind; the libraries of the engines a spec uses read some of them.
# shellcheck disable=SC2034
declare BS_DIR='' BS_DEVICE='' BS_HERE=''
# shellcheck disable=SC2034
declare -A BS_TDIR=() BS_TDEV=() BS_TURL=() BS_TBUCKET=() BS_TREGION=() BS_TAPI=()
# The places of a case's targets run at once ("dir:PATH" or "dev:DEVICE"), set by its group's enter.
BS_TPLACES=()
# The current case's target-steps function and idle seconds (bs_run_case); what each steps function came to.
BS_STEPS=-
BS_IDLE=0
declare -A BS_STEPS_DONE=()

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
  # On several hosts: the instant every copy starts this repetition at (hosts.sh).
  bs_hosts_gate
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
  row='{"v":1,"source":"shell",'"$BS_ROW_SPEC,$BS_META$BS_HOST_FIELD"',"repetition":'"$BS_REP"',"warmup":'"$BS_WARM"',"ok":'"$ok"
  if [[ -n $error ]]; then
    bs_json e "$error"
    row+=',"error":'"$e"
  fi
  row+=',"start":"'"$start"'","end":"'"$end"'","bytes":'"$bytes"',"ops":'"$ops"',"seconds":'"$seconds"
  row+=',"throughput":'"$tp"',"iops":'"$iops"
  if [[ -n $BS_LATENCY ]]; then row+=',"latency":'"$BS_LATENCY"; fi
  if [[ -n $BS_LATENCY_BINS ]]; then row+=',"latencyBins":'"$BS_LATENCY_BINS"; fi
  if [[ -n $BS_JOBS ]]; then row+=',"jobs":'"$BS_JOBS"; fi
  if [[ -n $BS_AUTOTUNE ]]; then row+=',"autotune":'"$BS_AUTOTUNE"; fi
  if [[ -n $BS_BY_OP ]]; then row+=',"byOp":{'"$BS_BY_OP"'}'; fi
  row+=$BS_ROW_EXTRA
  printf '%s}\n' "$row"
  # Kept beside the repetition for the rounds, which judge the tracked case's row (bs_rounds_value).
  printf '%s}\n' "$row" >"$BS_REPDIR/row"
  BS_ROW=$ok
}

# ---------- latency bins: what rows of several hosts or targets pool their percentiles by ----------
# src/rows/histogram.ts keeps latencies in HdrHistograms of nanoseconds at 3 significant digits: exact below
# 2048 ns, then 1024 buckets per power of two. bash cannot encode one, so rows carry "latencyBins"
# (nanoseconds → count) and these compute what the histograms would give.

# bs_bins_cut < "NANOSECONDS COUNT" lines: each value cut to the lowest of its bucket (keyed by its digits:
# awk keys a number past 2^31 by CONVFMT, %.6g, which would round it).
bs_bins_cut() {
  awk '{ v = $1; e = 1; while (v >= 2048) { v = int(v / 2); e *= 2 } n[sprintf("%.0f", v * e)] += $2 }
    END { for (k in n) printf "%s %.0f\n", k, n[k] }'
}

# bs_bins_json < "NANOSECONDS COUNT" lines: a row's "latencyBins" (equal values summed); nothing when none.
bs_bins_json() {
  awk '{ n[$1] += $2; any = 1 }
    END { if (!any) exit; printf "{"; sep = ""; for (k in n) { printf "%s\"%s\":%.0f", sep, k, n[k]; sep = "," } printf "}" }'
}

# bs_bins_pooled BINS MEANS: the latency of the operations of several parts together (BINS: "PART
# NANOSECONDS COUNT" lines; MEANS: "PART MEAN-SECONDS" lines), as latencyOfHistogram gives it for their
# merged histograms (src/results/merge-hosts.ts): each percentile the highest value of the bucket where the
# count reaches it (HdrHistogram's getValueAtPercentile), the mean each part's own weighted by the count of
# its bins. Nothing when there are no bins.
bs_bins_pooled() {
  local means
  means=$(awk '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2 }' "$2")
  awk '{ print $2, $3 }' "$1" | bs_bins_cut | sort -n -k1,1 | awk -v means="$means" -v bins="$1" '
    { value[NR] = $1; count[NR] = $2; total += $2 }
    function ceil(x) { return x == int(x) ? x : int(x) + (x > 0) }
    function ulp(x,   u) { u = 1; while (u * 2 <= x) u *= 2; while (u > x) u /= 2; return u / 4503599627370496 }
    function at(p,   want, seen, i, v, e) {
      want = (p / 100) * total; want = ceil(want - ulp(want)); if (want < 1) want = 1
      for (i = 1; i <= NR; i++) { seen += count[i]; if (seen >= want) break }
      v = value[i]; e = 1; while (v >= 2048) { v = int(v / 2); e *= 2 }
      return (value[i] + e - 1) / 1e9
    }
    END {
      if (total == 0) exit
      n = split(means, pairs, " ")
      for (i = 1; i <= n; i++) { split(pairs[i], kv, "="); mean[kv[1]] = kv[2] }
      while ((getline line < bins) > 0) { split(line, f, " "); per[f[1]] += f[3] }
      for (p in per) m += mean[p] * per[p]
      printf "{\"mean\":%.17g,\"p50\":%.17g,\"p90\":%.17g,\"p99\":%.17g,\"p99.9\":%.17g}", m / total, at(50), at(90), at(99), at(99.9)
    }'
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
  bs_hosts_slot
  if [[ -n ${BS_STEPS_DONE[$BS_STEPS]:-} ]]; then
    BS_FAILURES=$((BS_FAILURES + 1))
    bs_now t0
    bs_hosts_arrive "$t0"
    BS_LATENCY='' BS_LATENCY_BINS='' BS_JOBS=''
    bs_emit false "${BS_STEPS_DONE[$BS_STEPS]}" "$t0" "$t0" 0 0
    return
  fi
  "${BS_TARGET}_repetition"
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
  # A repetition that failed before its start still arrives, so that the other copies do not wait for it.
  bs_now t1
  bs_hosts_arrive "$t1"
  case $status in
    0) ;;
    3) BS_FAILURES=$((BS_FAILURES + 1)) ;;
    *)
      BS_FAILURES=$((BS_FAILURES + 1))
      bs_first_error error "$BS_REPDIR/error"
      BS_LATENCY='' BS_LATENCY_BINS='' BS_JOBS=''
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

# bs_place_add ENTER: a member of a case's targets run at once entered (its ENTER function), its place added
# to BS_TPLACES.
bs_place_add() {
  BS_DIR='' BS_DEVICE=''
  "$1"
  if [[ -n $BS_DEVICE ]]; then BS_TPLACES+=("dev:$BS_DEVICE"); else BS_TPLACES+=("dir:$BS_DIR"); fi
}

# bs_case_select INDEX ID TARGET META STEPS IDLE: makes INDEX the current case — its function, target and
# row fields; STEPS is the function that purges and preconditions its workload on its target ("-": none),
# IDLE the seconds before each repetition. Its state directory is its own until bs_case_close.
bs_case_select() {
  BS_CASE_INDEX=$1 BS_CASE=$2 BS_TARGET=$3 BS_META=$4 BS_STEPS=$5 BS_IDLE=$6
  BS_CASE_FN=bs_case_$1
  BS_CASESTATE=$BS_STATE/case.$1
}

# bs_case_open WARMUP: the current case made ready — a fresh state directory, its workload's purge and
# preconditioning on its target (once for all its cases there), then its WARMUP warm-ups.
bs_case_open() {
  local rep
  rm -rf -- "$BS_CASESTATE"
  mkdir -- "$BS_CASESTATE"
  "${BS_TARGET}_case"
  if [[ $BS_STEPS != - ]]; then bs_steps; fi
  for ((rep = 1; rep <= $1; rep++)); do bs_rep "$rep" true; done
}

bs_case_close() {
  "${BS_TARGET}_leave"
  rm -rf -- "$BS_CASESTATE"
}

# bs_run_case INDEX ID TARGET META REPEAT WARMUP STEPS IDLE: a case's warm-ups and repetitions in turn.
bs_run_case() {
  local rep
  bs_case_select "$1" "$2" "$3" "$4" "$7" "$8"
  bs_case_open "$6"
  for ((rep = 1; rep <= $5; rep++)); do bs_rep "$rep" false; done
  bs_case_close
}

