# shellcheck shell=bash
# Part of a compiled fio-client/<group>.sh (src/compile/fio-client.ts writes the rest). This header, up to
# the first blank line, is not copied into the script.

# bs_fc_log MESSAGE: to stderr, as benchspec's scripts say things.
bs_fc_log() { printf 'benchspec: %s\n' "$*" >&2; }

# bs_fc_now VAR: milliseconds since the epoch.
bs_fc_now() { printf -v "$1" '%s' "$(($(date +%s%N) / 1000000))"; }

# bs_fc_client OUTPUT KIND VARIABLE PLACE: one fio client run of the case's KIND jobfiles (h1.KIND.fio … one
# per host, fio sends each server its own), VARIABLE (BENCHSPEC_DIR) set to PLACE for fio to expand.
bs_fc_client() {
  local kind=$2 variable=$3 place=$4 k args=(--output-format=json+ "--output=$1")
  for ((k = 0; k < ${#BS_CLIENTS[@]}; k++)); do
    args+=("${BS_CLIENTS[k]}" "$BS_CASE_DIR/h$((k + 1)).$kind.fio")
  done
  # fio reads ":" in a path as a separator of file names: escaped, as benchspec run escapes it. In the
  # case's output directory: fio's client writes the servers' bw/iops logs (sample) where it runs.
  (cd -- "$BS_CASE_OUT" && env "$variable=${place//:/\\:}" fio "${args[@]}")
}

# bs_fc_case ID VARIABLE PLACE REPEAT WARMUP PRECONDITION KEEP: one case on every host at once — its
# preconditioning (PRECONDITION 1), WARMUP warm-ups and REPEAT repetitions, each one fio client run whose
# json+ goes to OUT/ID/{w,r}N.json beside its start instant (.start, ms) and what fio said (.log); then
# the files its jobs made removed by fio itself (unless KEEP 1).
bs_fc_case() {
  local id=$1 variable=$2 place=$3 repeat=$4 warmup=$5 pre=$6 keep=$7 rep tag start
  BS_CASE_DIR=$BS_HERE/fio-client/$BS_GROUP/$id
  BS_CASE_OUT=$BS_OUT/$id
  mkdir -p -- "$BS_CASE_OUT"
  BS_CASE_KEEP=$keep BS_CASE_VARIABLE=$variable BS_CASE_PLACE=$place
  if [[ $pre == 1 ]]; then
    bs_fc_log "$id: preconditioning on ${#BS_CLIENTS[@]} hosts"
    if ! bs_fc_client "$BS_CASE_OUT/precondition.json" precondition "$variable" "$place" \
      >"$BS_CASE_OUT/precondition.log" 2>&1; then
      bs_fc_log "$id: preconditioning failed (fio said: $(tail -n 3 -- "$BS_CASE_OUT/precondition.log" | tr '\n' ' '))"
      BS_FAILED=1
    fi
  fi
  for ((rep = 1; rep <= warmup + repeat; rep++)); do
    if ((rep <= warmup)); then tag=w$rep; else tag=r$((rep - warmup)); fi
    if ((rep <= warmup)); then bs_fc_log "$id: warm-up $rep"; else bs_fc_log "$id: repetition $((rep - warmup))"; fi
    bs_fc_now start
    printf '%s\n' "$start" >"$BS_CASE_OUT/$tag.start"
    # A failed run is kept as it is (merge reads what fio reported per server); the others go on.
    bs_fc_client "$BS_CASE_OUT/$tag.json" run "$variable" "$place" >"$BS_CASE_OUT/$tag.log" 2>&1 || BS_FAILED=1
  done
  bs_fc_cleanup
}

# bs_fc_cleanup: the current case's files removed on every host (fio's create_only + unlink job), once.
bs_fc_cleanup() {
  if [[ -z ${BS_CASE_DIR:-} ]]; then return 0; fi
  if [[ $BS_CASE_KEEP != 1 ]]; then
    bs_fc_client /dev/null cleanup "$BS_CASE_VARIABLE" "$BS_CASE_PLACE" >/dev/null 2>&1 ||
      bs_fc_log "could not remove the files of ${BS_CASE_DIR##*/} on every host"
  fi
  BS_CASE_DIR=
}

# bs_fc_main OUT: the output directory made, the group's hosts and compile's plan.json copied into it (what
# `benchspec merge OUT` reads), Ctrl-C handled, then the cases (bs_fc_cases).
bs_fc_main() {
  BS_OUT=${1:-}
  if [[ -z $BS_OUT ]]; then
    bs_fc_log "usage: $0 OUTPUT-DIRECTORY (then: benchspec merge OUTPUT-DIRECTORY -o MERGED)"
    exit 2
  fi
  command -v fio >/dev/null || {
    bs_fc_log "fio is not installed (Debian/Ubuntu: apt-get install fio); fio's client runs here"
    exit 127
  }
  mkdir -p -- "$BS_OUT"
  BS_OUT=$(cd -- "$BS_OUT" && pwd)
  cp -- "$BS_HERE/fio-client/$BS_GROUP/hosts.json" "$BS_OUT/$BS_HOSTS_FILE"
  cp -- "$BS_HERE/$BS_PLAN" "$BS_OUT/$BS_PLAN"
  # fio's client ends its servers' jobs on Ctrl-C; the case's files are removed before the script exits.
  trap 'bs_fc_cleanup; exit 130' INT
  trap 'bs_fc_cleanup; exit 143' TERM
  bs_fc_cases
  if ((BS_FAILED)); then exit 1; fi
  bs_fc_log "done: benchspec merge $BS_OUT -o <merged run directory>"
}
