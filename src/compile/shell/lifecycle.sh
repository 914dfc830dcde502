# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_REPDIR is read by runtime.sh
# The end of the runtime of every compiled benchspec.sh, after the target kinds' functions
# (src/compile/shell/script.ts assembles it). This header, up to the first blank line, is not copied.

# ---------- lifecycle ----------

bs_init() {
  BS_TMPBASE=${BENCHSPEC_TMPDIR:-${TMPDIR:-/tmp}}
  BS_RUN_ID=${BENCHSPEC_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$$}
  if [[ ! $BS_RUN_ID =~ ^[A-Za-z0-9._-]+$ ]]; then bs_die "BENCHSPEC_RUN_ID may only hold letters, digits, '.', '_' and '-'"; fi
  # shellcheck disable=SC2034 # where the fio jobfiles are
  BS_HERE=$(cd -- "$(dirname -- "$0")" && pwd -P)
  trap 'bs_cleanup' EXIT
  trap 'bs_interrupt 130' INT
  trap 'bs_interrupt 143' TERM
  BS_STATE=$(mktemp -d "$BS_TMPBASE/benchspec.XXXXXX")
  mkdir -- "$BS_STATE/targets"
  BS_REPDIR=$BS_STATE/rep
  bs_hosts_init
  bs_log "$BS_GENERATOR: spec $BS_SPEC (sha256 $BS_SPEC_HASH, $BS_CASES cases), run $BS_RUN_ID"
}

bs_interrupt() {
  trap '' INT TERM
  bs_log "interrupted: stopping and cleaning up"
  if [[ -n $BS_CHILD ]]; then
    kill -TERM -- "-$BS_CHILD" 2>/dev/null || kill -TERM "$BS_CHILD" 2>/dev/null || true
    wait "$BS_CHILD" 2>/dev/null || true
  fi
  exit "$1"
}

bs_cleanup() {
  local status=$? f i
  set +e
  trap '' INT TERM
  for f in "${BS_RELEASE[@]}"; do "$f"; done
  for ((i = ${#BS_CLEAN[@]} - 1; i >= 0; i--)); do rm -rf -- "${BS_CLEAN[i]}"; done
  if [[ -n $BS_STATE ]]; then rm -rf -- "$BS_STATE"; fi
  exit "$status"
}

bs_finish() {
  if ((BS_FAILURES > 0)); then
    bs_log "$BS_FAILURES repetition(s) failed"
    exit 1
  fi
  bs_log "done"
}
