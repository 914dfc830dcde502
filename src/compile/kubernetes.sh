# shellcheck shell=bash
# shellcheck disable=SC2154 # BS_NAME, BS_PODS, BS_MANIFESTS, BS_PLAN, BS_SELECTOR, BS_PART, BS_DEFAULT_PERIOD, BS_SECRETS and BS_KUBECTL are assigned above it
# The body of every compiled kubernetes/<group>.sh (src/compile/kubernetes.ts writes what comes before it).
# This header, up to the first blank line, is not copied.

bs_log() { printf 'benchspec: %s\n' "$*" >&2; }

# bs_kube_delete: the Job (its pods first: foreground) and the ConfigMap, whatever of them exists.
# shellcheck disable=SC2317 # called by the EXIT trap
bs_kube_delete() {
  "${BS_KUBECTL[@]}" delete job "$BS_NAME" --cascade=foreground --ignore-not-found --wait=true --timeout=120s >/dev/null || true
  "${BS_KUBECTL[@]}" delete configmap "$BS_NAME" --ignore-not-found --wait=true >/dev/null || true
  if ((${#BS_SECRETS[@]} > 0)); then
    "${BS_KUBECTL[@]}" delete secret "$BS_NAME-env" --ignore-not-found --wait=true >/dev/null || true
  fi
}

# bs_kube_secret: the Secret the pods take the targets' variables from, made from this environment. The
# values go through a pipe, never on a command line; one that is unset is left out (the script says so).
bs_kube_secret() {
  local name
  if ((${#BS_SECRETS[@]} == 0)); then return 0; fi
  for name in "${BS_SECRETS[@]}"; do
    if [[ -z ${!name:-} ]]; then bs_log "$name is not set here: the pods' cases that need it will fail"; fi
  done
  "${BS_KUBECTL[@]}" create secret generic "$BS_NAME-env" --from-env-file=<(
    for name in "${BS_SECRETS[@]}"; do
      if [[ -n ${!name:-} ]]; then printf '%s=%s\n' "$name" "${!name}"; fi
    done
  ) >/dev/null
  "${BS_KUBECTL[@]}" label secret "$BS_NAME-env" app.kubernetes.io/managed-by=benchspec "$BS_SELECTOR" >/dev/null
}

# bs_kube_wait EPOCH: until every pod of the Job ended; 1 when one has not started by the first start.
bs_kube_wait() {
  local epoch=$1 succeeded failed pending
  while :; do
    read -r succeeded failed < <("${BS_KUBECTL[@]}" get job "$BS_NAME" \
      -o jsonpath='{.status.succeeded}{" "}{.status.failed}{"\n"}' 2>/dev/null || echo "0 0")
    if ((${succeeded:-0} + ${failed:-0} >= BS_PODS)); then
      ((${failed:-0} == 0))
      return
    fi
    if (($(date +%s) > epoch + 10)); then
      pending=$("${BS_KUBECTL[@]}" get pods --selector "$BS_SELECTOR" --field-selector=status.phase=Pending -o name 2>/dev/null || true)
      if [[ -n $pending ]]; then
        bs_log "not started by the first start instant (it has missed it): ${pending//$'\n'/ } — kubectl describe them for why; BENCHSPEC_START_LEAD gives the pods longer"
        return 1
      fi
    fi
    sleep 2
  done
}

# bs_kube_collect OUT: each pod's log split into OUT/pod-K/results.ndjson, timeseries.ndjson and log.
bs_kube_collect() {
  local out=$1 k pod dir
  for ((k = 0; k < BS_PODS; k++)); do
    pod=$("${BS_KUBECTL[@]}" get pods --selector "$BS_SELECTOR,batch.kubernetes.io/job-completion-index=$k" -o name 2>/dev/null | head -n 1)
    if [[ -z $pod ]]; then
      bs_log "pod $k: none was created (kubectl describe job $BS_NAME)"
      continue
    fi
    dir=$out/pod-$k
    mkdir -p -- "$dir"
    "${BS_KUBECTL[@]}" logs "$pod" >"$dir/pod.log" 2>/dev/null || true
    grep '^{' "$dir/pod.log" >"$dir/results.ndjson" || true
    grep '^@ ' "$dir/pod.log" | cut -c3- >"$dir/timeseries.ndjson" || true
    grep -v '^[{@]' "$dir/pod.log" | sed 's/^# //' >"$dir/log" || true
    rm -f -- "$dir/pod.log"
    if [[ ! -s $dir/timeseries.ndjson ]]; then rm -f -- "$dir/timeseries.ndjson"; fi
    if [[ -s $dir/log ]]; then bs_log "pod $k (${pod#pod/}): $(tail -n 1 -- "$dir/log")"; fi
  done
}

bs_kube_main() {
  local out=${1:-} here period lead epoch status=0
  if [[ -z $out ]]; then
    bs_log "usage: $0 OUT"
    exit 2
  fi
  here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
  period=${BENCHSPEC_PERIOD:-$BS_DEFAULT_PERIOD}
  lead=${BENCHSPEC_START_LEAD:-60}
  if [[ ! $period =~ ^[0-9]+([.][0-9]{1,6})?$ ]]; then
    bs_log "BENCHSPEC_PERIOD must be a number of seconds, not '$period'"
    exit 2
  fi
  if [[ ! $lead =~ ^[0-9]+$ ]]; then
    bs_log "BENCHSPEC_START_LEAD must be a whole number of seconds, not '$lead'"
    exit 2
  fi
  if "${BS_KUBECTL[@]}" get job "$BS_NAME" -o name >/dev/null 2>&1; then
    bs_log "Job $BS_NAME exists already (another run of these manifests?): kubectl delete job $BS_NAME"
    exit 2
  fi
  mkdir -p -- "$out"
  cp -- "$here/$BS_PLAN" "$out/$BS_PLAN"
  trap 'bs_kube_delete' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  bs_kube_secret
  "${BS_KUBECTL[@]}" create -f "$here/$BS_MANIFESTS" --selector "$BS_PART=script" >/dev/null
  epoch=$(($(date +%s) + lead))
  "${BS_KUBECTL[@]}" patch configmap "$BS_NAME" --type merge \
    -p "{\"data\":{\"epoch\":\"$epoch\",\"period\":\"$period\"}}" >/dev/null
  "${BS_KUBECTL[@]}" create -f "$here/$BS_MANIFESTS" --selector "$BS_PART=job" >/dev/null
  bs_log "Job $BS_NAME: $BS_PODS pod(s), repetitions from $(date -u -d "@$epoch" +%FT%TZ) every ${period}s; rows into $out"
  bs_kube_wait "$epoch" || status=1
  bs_kube_collect "$out"
  if bash -c "${BENCHSPEC_COMMAND:-benchspec}"' --version' >/dev/null 2>&1; then
    bash -c "${BENCHSPEC_COMMAND:-benchspec}"' merge "$@"' bs-merge "$out"/pod-* -o "$out/merged" || status=$?
  else
    bs_log "benchspec does not run here; merge the pods' rows where it does: benchspec merge $out/pod-* -o $out/merged"
  fi
  exit "$status"
}
