# shellcheck shell=bash
# The command of each pod of a compiled kubernetes/<group>.yaml Job (`bash -c` this, the script's path as $1;
# src/compile/kubernetes.ts puts it there). The pod's log is the run's output: rows as the script prints
# them, then its time series marked `@ `; the script's own words go to stderr marked `# `. This header, up
# to the first blank line, is not copied.

if [[ -z ${BENCHSPEC_EPOCH:-} ]]; then
  echo "# benchspec: the ConfigMap's epoch is not set: create the Job with kubernetes/$BENCHSPEC_GROUP.sh, or set the ConfigMap's epoch to a start instant ahead (seconds since 1970) before the Job" >&2
  exit 2
fi
export BENCHSPEC_HOST="pod-$JOB_COMPLETION_INDEX@$NODE_NAME" BENCHSPEC_HOST_INDEX="$JOB_COMPLETION_INDEX"
export BENCHSPEC_RUN_ID="k8s-${BENCHSPEC_JOB_UID:0:8}" BENCHSPEC_TIMESERIES=/tmp/benchspec-timeseries.ndjson
status=0
bash "$1" 2> >(sed -u 's/^/# /' >&2) || status=$?
wait "$!" 2>/dev/null || true
if [[ -s $BENCHSPEC_TIMESERIES ]]; then sed 's/^/@ /' "$BENCHSPEC_TIMESERIES"; fi
exit "$status"
