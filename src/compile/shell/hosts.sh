# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_HOST_FIELD is read by runtime.sh
# Part of every compiled benchspec.sh (src/compile/shell/script.ts assembles it): the script as one of N
# copies started on N hosts, each repetition started at one instant they agree on without benchspec. This
# header, up to the first blank line, is not copied into the script.

# ---------- several hosts: this script as one of N copies ----------
# BENCHSPEC_HOST_COUNT=N (N > 1) makes this copy one of N; BENCHSPEC_HOST_INDEX (0…N-1) tells them apart
# (its own directories and S3 keys) and BENCHSPEC_HOST names it in its rows (default: the host name). Every
# repetition — warm-up or measured — is a start slot, numbered in the order the copies all run them; its
# start instant is agreed in one of two ways:
#   BENCHSPEC_BARRIER=DIR   a directory every copy sees (a shared file system): each copy, once ready for
#                           slot K, writes DIR/slot.K/INDEX holding its clock; when all N are there, each
#                           starts at the latest of them plus BENCHSPEC_START_DELAY (default 1 s), so the
#                           slowest copy sets the pace; BENCHSPEC_BARRIER_TIMEOUT (default 3600 s) bounds
#                           the wait for the others (a copy that did not come is not waited for again)
#   BENCHSPEC_EPOCH=T BENCHSPEC_PERIOD=P   no shared file system (clocks synchronised, e.g. by NTP): slot K
#                           starts at T + K × P (seconds since 1970); P must exceed what any slot and the
#                           steps before it take
# A copy that reaches a slot after its instant does not start it: that repetition fails, saying by how much
# it was late. BENCHSPEC_GROUP=NAME runs only the cases of the spec's host group NAME.
BS_HOSTS=0
BS_HOST_INDEX=0
BS_HOST_FIELD=
BS_SLOT=-1
BS_BARRIER_DIR=
BS_EPOCH_US=
BS_PERIOD_US=
BS_START_DELAY_US=1000000
BS_BARRIER_TIMEOUT=3600
BS_GROUP=${BENCHSPEC_GROUP:-}

# bs_us VAR SECONDS NAME: SECONDS (a decimal number, at most 6 places) as microseconds, or die naming NAME.
bs_us() {
  local s=$2 whole frac
  if [[ ! $s =~ ^[0-9]+([.][0-9]{1,6})?$ ]]; then bs_die "$3 must be a number of seconds (up to 6 decimals), not '$s'"; fi
  whole=${s%%.*}
  frac=
  if [[ $s == *.* ]]; then frac=${s#*.}; fi
  frac=${frac}000000
  printf -v "$1" '%s' "$((10#$whole * 1000000 + 10#${frac:0:6}))"
}

bs_hosts_init() {
  local n=${BENCHSPEC_HOST_COUNT:-} name
  if [[ -n $BS_GROUP && -z ${BS_GROUPS+set} ]]; then
    bs_die "BENCHSPEC_GROUP=$BS_GROUP: the spec has no host groups"
  fi
  if [[ -n $BS_GROUP && " ${BS_GROUPS[*]} " != *" $BS_GROUP "* ]]; then
    bs_die "BENCHSPEC_GROUP=$BS_GROUP: the spec has no host group of that name (it has: ${BS_GROUPS[*]})"
  fi
  if [[ -z $n || $n == 1 ]]; then
    if [[ -n ${BENCHSPEC_BARRIER:-}${BENCHSPEC_EPOCH:-} ]]; then
      bs_die "BENCHSPEC_BARRIER and BENCHSPEC_EPOCH are for several copies: set BENCHSPEC_HOST_COUNT (and BENCHSPEC_HOST_INDEX) too"
    fi
    return 0
  fi
  if [[ ! $n =~ ^[1-9][0-9]*$ ]]; then bs_die "BENCHSPEC_HOST_COUNT must be a whole number of hosts, not '$n'"; fi
  BS_HOST_INDEX=${BENCHSPEC_HOST_INDEX:-}
  if [[ ! $BS_HOST_INDEX =~ ^[0-9]+$ ]] || ((10#$BS_HOST_INDEX >= n)); then
    bs_die "BENCHSPEC_HOST_INDEX must be 0…$((n - 1)) (this copy's place among the $n), not '$BS_HOST_INDEX'"
  fi
  BS_HOST_INDEX=$((10#$BS_HOST_INDEX))
  BS_HOSTS=$n
  name=${BENCHSPEC_HOST:-$(uname -n)}
  bs_json name "$name"
  BS_HOST_FIELD=',"host":'"$name"
  if [[ -n ${BENCHSPEC_BARRIER:-} ]]; then
    if [[ -n ${BENCHSPEC_EPOCH:-} ]]; then bs_die "set BENCHSPEC_BARRIER or BENCHSPEC_EPOCH, not both"; fi
    BS_BARRIER_DIR=$BENCHSPEC_BARRIER
    if [[ ! -d $BS_BARRIER_DIR || ! -w $BS_BARRIER_DIR ]]; then
      bs_die "BENCHSPEC_BARRIER=$BS_BARRIER_DIR is not a writable directory (it must be one every copy sees)"
    fi
    if [[ -n ${BENCHSPEC_START_DELAY:-} ]]; then bs_us BS_START_DELAY_US "$BENCHSPEC_START_DELAY" BENCHSPEC_START_DELAY; fi
    if [[ -n ${BENCHSPEC_BARRIER_TIMEOUT:-} ]]; then
      if [[ ! $BENCHSPEC_BARRIER_TIMEOUT =~ ^[1-9][0-9]*$ ]]; then bs_die "BENCHSPEC_BARRIER_TIMEOUT must be whole seconds, not '$BENCHSPEC_BARRIER_TIMEOUT'"; fi
      BS_BARRIER_TIMEOUT=$BENCHSPEC_BARRIER_TIMEOUT
    fi
  elif [[ -n ${BENCHSPEC_EPOCH:-} ]]; then
    bs_us BS_EPOCH_US "$BENCHSPEC_EPOCH" BENCHSPEC_EPOCH
    bs_us BS_PERIOD_US "${BENCHSPEC_PERIOD:-}" BENCHSPEC_PERIOD
    if ((BS_PERIOD_US == 0)); then bs_die "BENCHSPEC_PERIOD must be more than 0 seconds"; fi
  else
    bs_die "BENCHSPEC_HOST_COUNT=$n: say how the copies agree on each start: BENCHSPEC_BARRIER=DIR (a directory every copy sees) or BENCHSPEC_EPOCH and BENCHSPEC_PERIOD"
  fi
  # Its own directories and S3 keys, also when the copies share BENCHSPEC_RUN_ID.
  BS_RUN_ID=$BS_RUN_ID-h$BS_HOST_INDEX
  bs_log "host $name: copy $BS_HOST_INDEX of $n${BS_GROUP:+, group $BS_GROUP}"
}

# bs_on_group GROUP…: whether this copy runs what runs on one of the host groups GROUP… ('' : none).
bs_on_group() {
  local g
  if [[ -z $BS_GROUP ]]; then return 0; fi
  for g in "$@"; do
    if [[ $g == "$BS_GROUP" ]]; then return 0; fi
  done
  return 1
}

# bs_hosts_no_rounds WORKLOAD GROUP: a workload in rounds stops when every host's rows together are steady,
# which copies that cannot see each other's rows cannot judge.
bs_hosts_no_rounds() {
  if ((BS_HOSTS > 1)) && bs_on_group "$2"; then
    bs_die "workload $1 runs in rounds to steady state, judged on every host's rows together, which copies of this script cannot see; run it with benchspec run, or as one copy"
  fi
}

# bs_hosts_slot: the next start slot (in the parent, once per repetition).
bs_hosts_slot() {
  if ((BS_HOSTS > 1)); then BS_SLOT=$((BS_SLOT + 1)); fi
}

# bs_hosts_arrive STAMP: this copy's arrival at the current slot, for the others (barrier only; once).
bs_hosts_arrive() {
  local dir=$BS_BARRIER_DIR/slot.$BS_SLOT
  if [[ -z $BS_BARRIER_DIR || -e $BS_REPDIR/arrived ]]; then return 0; fi
  mkdir -p -- "$dir"
  printf '%s %s\n' "$1" "$BS_CASE#$BS_REP#$BS_WARM" >"$dir/.$BS_HOST_INDEX"
  mv -f -- "$dir/.$BS_HOST_INDEX" "$dir/$BS_HOST_INDEX"
  : >"$BS_REPDIR/arrived"
}

# bs_hosts_gate: waits for the current slot's start instant (in the repetition, just before its timed I/O
# is released; an untimed pool before it — the objects a read needs, BS_UNTIMED — and the later pools of
# the same repetition — autotune's rounds — pass).
bs_hosts_gate() {
  local at now left
  if ((BS_HOSTS <= 1)) || [[ -n ${BS_UNTIMED:-} || -e $BS_REPDIR/gated ]]; then return 0; fi
  : >"$BS_REPDIR/gated"
  bs_now now
  if [[ -n $BS_BARRIER_DIR ]]; then
    bs_hosts_arrive "$now"
    bs_hosts_barrier at
  else
    at=$((BS_EPOCH_US + BS_SLOT * BS_PERIOD_US))
  fi
  bs_now now
  if ((now > at)); then
    bs_fail "missed its start instant (slot $BS_SLOT) by $(((now - at) / 1000)) ms: the copies did not start this repetition together${BS_BARRIER_DIR:+; raise BENCHSPEC_START_DELAY}${BS_EPOCH_US:+; raise BENCHSPEC_PERIOD}"
  fi
  # sleep until 20 ms before, then the rest by the clock (sleep itself takes a millisecond or so to start).
  left=$((at - now - 20000))
  if ((left > 0)); then sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"; fi
  while :; do
    bs_now now
    if ((now >= at)); then break; fi
  done
}

# bs_hosts_barrier VAR: the instant every copy arrived at the current slot agrees on.
bs_hosts_barrier() {
  local dir=$BS_BARRIER_DIR/slot.$BS_SLOT deadline now i stamp what max=0 mine="$BS_CASE#$BS_REP#$BS_WARM"
  bs_now now
  deadline=$((now + BS_BARRIER_TIMEOUT * 1000000))
  for ((i = 0; i < BS_HOSTS; i++)); do
    while [[ ! -e $dir/$i ]]; do
      # A copy that once did not come (it died, or its host did) is not waited for again.
      if [[ -e $BS_STATE/gone.$i ]]; then continue 2; fi
      bs_now now
      if ((now > deadline)); then
        : >"$BS_STATE/gone.$i"
        bs_fail "copy $i did not reach start slot $BS_SLOT within $BS_BARRIER_TIMEOUT s (BENCHSPEC_BARRIER_TIMEOUT): taken as gone, the others go on without waiting for it"
      fi
      sleep 0.02
    done
    read -r stamp what <"$dir/$i" || true
    if [[ ! $stamp =~ ^[0-9]+$ ]]; then bs_fail "copy $i's arrival at start slot $BS_SLOT is unreadable"; fi
    if [[ $what != "$mine" ]]; then
      bs_fail "copy $i is at $what in start slot $BS_SLOT, this one at $mine: the copies are out of step (another spec, --set or BENCHSPEC_GROUP?)"
    fi
    if ((stamp > max)); then max=$stamp; fi
  done
  printf -v "$1" '%s' "$((max + BS_START_DELAY_US))"
}
