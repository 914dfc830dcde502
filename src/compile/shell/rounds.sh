# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_TARGET, BS_CASE and BS_CASESTATE are set here for runtime.sh's bs_case_close
# Part of a compiled benchspec.sh whose plan has a workload in rounds (src/compile/shell/rounds.ts writes
# the loops that call it). This header, up to the first blank line, is not copied into the script.

# ---------- rounds to steady state (SNIA PTS), as benchspec run judges them ----------
# A workload in rounds runs, per target, every case once per round (the repetition numbered as the round)
# until the tracked case's figure is steady over the last WINDOW rounds or MAX rounds have run; the
# generated bs_rounds_N functions hold the loop, these judge it.

# bs_rounds_value VAR METRIC: the tracked figure (iops, throughput, or latency: its mean) of the repetition
# just run, from its row; empty when the repetition failed.
bs_rounds_value() {
  local figure
  figure=$(awk -v metric="$2" '/"ok":true/ {
    key = metric == "latency" ? ",\"latency\":[{]\"mean\":" : ",\"" metric "\":"
    if (match($0, key "[-+.0-9eE]+")) { v = substr($0, RSTART, RLENGTH); sub(/.*:/, "", v); print v }
  }' "$BS_REPDIR/row" 2>/dev/null)
  printf -v "$1" '%s' "$figure"
}

# bs_rounds_steady WINDOW EXCURSION SLOPE VALUE...: whether the last WINDOW values (rounds first…last) are
# a steady window: max − min ≤ EXCURSION % of their average, and the least-squares slope × (WINDOW − 1) ≤
# SLOPE % of it — results/steady-rounds.ts's arithmetic, operation for operation, so both stop at one round.
bs_rounds_steady() {
  local window=$1 excursion=$2 slope=$3
  shift 3
  if (($# < window)); then return 1; fi
  awk -v n="$window" -v e="$excursion" -v s="$slope" -v first="$(($# - window + 1))" 'BEGIN {
    for (i = 0; i < n; i++) { y[i] = ARGV[ARGC - n + i] + 0; x[i] = first + i }
    sum = 0; for (i = 0; i < n; i++) sum += y[i]; average = sum / n
    sum = 0; for (i = 0; i < n; i++) sum += x[i]; xmean = sum / n
    sxy = 0; sxx = 0
    for (i = 0; i < n; i++) { sxy += (x[i] - xmean) * (y[i] - average); sxx += (x[i] - xmean) ^ 2 }
    b = sxx == 0 ? 0 : sxy / sxx
    lo = y[0]; hi = y[0]
    for (i = 1; i < n; i++) { if (y[i] < lo) lo = y[i]; if (y[i] > hi) hi = y[i] }
    a = average < 0 ? -average : average
    excursion = (b < 0 ? -b : b) * (n - 1)
    exit !(hi - lo <= e / 100 * a && excursion <= s / 100 * a)
  }' "$@"
}

# bs_rounds_close TARGET INDEX ID [INDEX ID]...: a round loop's cases, all on TARGET, closed.
bs_rounds_close() {
  BS_TARGET=$1
  shift
  while (($# >= 2)); do
    BS_CASE=$2 BS_CASESTATE=$BS_STATE/case.$1
    bs_case_close
    shift 2
  done
}
