# shellcheck shell=bash
# shellcheck disable=SC2154 # BS_GROUP, BS_NODES, BS_MERGE and BS_SRUN are assigned by the sbatch script above it
# The body of every compiled slurm/<group>.sbatch (src/compile/slurm.ts writes what comes before it). This
# header, up to the first blank line, is not copied.

bs_log() { printf 'benchspec: %s\n' "$*" >&2; }

# bs_slurm_main SCRIPT PLAN: the compiled SCRIPT on every node of the job, then the merge of their rows.
bs_slurm_main() {
  local script=$1 plan=$2 compiled out status=0 node merged
  compiled=${BENCHSPEC_COMPILED:-${SLURM_SUBMIT_DIR:-$PWD}}
  if [[ ! -f $compiled/$script ]]; then
    bs_log "no $script in $compiled: run sbatch from the directory compile wrote, or set BENCHSPEC_COMPILED"
    exit 2
  fi
  if [[ -z ${SLURM_JOB_ID:-} ]]; then
    bs_log "not in a Slurm job: submit this with sbatch"
    exit 2
  fi
  out=${BENCHSPEC_OUT:-$compiled/slurm-$BS_GROUP-$SLURM_JOB_ID}
  mkdir -p -- "$out/barrier"
  cp -- "$compiled/$plan" "$out/$plan"
  bs_log "group $BS_GROUP: $script on $BS_NODES node(s) ($SLURM_JOB_NODELIST), rows into $out"
  # One task per node; a node whose copy fails does not stop the others (its rows say why).
  srun --nodes="$BS_NODES" --ntasks="$BS_NODES" --ntasks-per-node=1 --kill-on-bad-exit=0 "${BS_SRUN[@]}" \
    bash -c 'node=$1/node-$SLURM_PROCID
      mkdir -p -- "$node"
      BENCHSPEC_GROUP=$2 BENCHSPEC_HOST=${SLURMD_NODENAME:-$(uname -n)} BENCHSPEC_HOST_INDEX=$SLURM_PROCID \
        BENCHSPEC_HOST_COUNT=$SLURM_NTASKS BENCHSPEC_BARRIER=$1/barrier BENCHSPEC_TIMESERIES=$node/timeseries.ndjson \
        BENCHSPEC_RUN_ID=slurm-$SLURM_JOB_ID exec bash "$3" >"$node/results.ndjson" 2>"$node/log"' \
    bs-node "$out" "$BS_GROUP" "$compiled/$script" || status=$?
  for node in "$out"/node-*/log; do
    if [[ -s $node ]]; then bs_log "${node%/log}: $(tail -n 1 -- "$node")"; fi
  done
  merged=$out/merged
  if bash -c "${BENCHSPEC_COMMAND:-$BS_MERGE}"' --version' >/dev/null 2>&1; then
    bash -c "${BENCHSPEC_COMMAND:-$BS_MERGE}"' merge "$@"' bs-merge "$out"/node-* -o "$merged" || status=$?
  else
    bs_log "benchspec does not run here; merge the nodes' rows where it does: benchspec merge $out/node-* -o $merged"
  fi
  exit "$status"
}
