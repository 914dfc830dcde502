# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_LATENCY and BS_JOBS are set here for the runtime (runtime.sh) to read
# Part of a compiled benchspec.sh that runs fio cases (src/engines/fio/shell.ts writes it). This header, up to
# the first blank line, is not copied into the script.

# bs_fio_env: where fio's jobs go (the jobfiles read ${BENCHSPEC_DEVICE} or ${BENCHSPEC_DIR}).
bs_fio_env() {
  if [[ -n $BS_DEVICE ]]; then
    export BENCHSPEC_DEVICE=${BS_DEVICE//:/\\:}
  else
    export BENCHSPEC_DIR=${BS_DIR//:/\\:}
  fi
}

# bs_fio_precondition JOBFILE PREFIX PASSES: the sections PREFIX-1…PASSES of the jobfile, once per
# workload and target (a target step, bs_steps).
bs_fio_precondition() {
  local job=$BS_HERE/$1 prefix=$2 passes=$3 pass
  local -a pre=()
  bs_fio_env
  for ((pass = 1; pass <= passes; pass++)); do pre+=("--section=$prefix-$pass"); done
  bs_log "$BS_CASE: preconditioning ($passes pass(es))"
  (cd -- "$BS_REPDIR" && fio "${pre[@]}" "$job" >&2) || bs_fail "fio preconditioning failed (exit $?)"
}

# bs_fio JOBFILE JOBNAME BS [SAMPLE_MS]: one repetition of an fio case (the jobfile's section JOBNAME);
# with SAMPLE_MS, its time series from fio's averaged logs (bs_fio_series).
bs_fio() {
  local job=$BS_HERE/$1 name=$2 bs=$3 sample=${4:-} logs out t0 t1 result
  bs_fio_env
  # fio writes its bandwidth/IOPS logs into the working directory: BENCHSPEC_LOG_DIR keeps them.
  if [[ -n ${BENCHSPEC_LOG_DIR:-} ]]; then
    logs=$BENCHSPEC_LOG_DIR/$BS_CASE/$BS_REPNAME
  else
    logs=$BS_REPDIR/logs
  fi
  mkdir -p -- "$logs"
  out=$BS_REPDIR/fio.terse
  bs_now t0
  (cd -- "$logs" && fio --output-format=terse --terse-version=3 --output="$out" --section="$name" "$job") || {
    local status=$?
    bs_fail "fio exited with status $status"
  }
  bs_now t1
  result=$(awk -F ';' -v name="$name" -v bs="$bs" '
    function pct(f, dir,   kv, p) {
      split(f, kv, "=")
      p = kv[1]; sub(/%$/, "", p); p += 0
      if (p == 50) key = "p50"; else if (p == 90) key = "p90"; else if (p == 99) key = "p99"
      else if (p == 99.9) key = "p999"; else return
      v[dir, key] = kv[2] / 1e6
    }
    $1 == 3 && $3 == name && !found {
      found = 1; err = $5
      rb = $6 * 1024; wb = $47 * 1024
      rt = $9; wt = $50
      rm = $16 / 1e6; wm = $57 / 1e6
      for (i = 18; i <= 37; i++) pct($i, "r")
      for (i = 59; i <= 78; i++) pct($i, "w")
    }
    END {
      if (!found) { print "missing"; exit }
      ro = rb / bs; wo = wb / bs; ops = ro + wo
      secs = (rt > wt ? rt : wt) / 1000
      mean = ops > 0 ? (rm * ro + wm * wo) / ops : 0
      n = split("p50 p90 p99 p999", keys, " ")
      for (k = 1; k <= n; k++) {
        q[k] = 0
        if (ro > 0 && v["r", keys[k]] > q[k]) q[k] = v["r", keys[k]]
        if (wo > 0 && v["w", keys[k]] > q[k]) q[k] = v["w", keys[k]]
      }
      printf "%s %.0f %.0f %.9g {\"mean\":%.9g,\"p50\":%.9g,\"p90\":%.9g,\"p99\":%.9g,\"p99.9\":%.9g}\n", err, rb + wb, ops, secs, mean, q[1], q[2], q[3], q[4]
    }' "$out")
  if [[ $result == missing ]]; then bs_fail "fio printed no terse result for job $name"; fi
  local err bytes ops seconds
  read -r err bytes ops seconds BS_LATENCY <<<"$result"
  BS_JOBS=
  if [[ -n $sample ]]; then bs_fio_series "$logs" "$name" "$sample"; fi
  if [[ $err != 0 ]]; then
    bs_emit false "fio reported error $err" "$t0" "$t1" "$bytes" "$ops" "$seconds"
  else
    bs_emit true "" "$t0" "$t1" "$bytes" "$ops" "$seconds"
  fi
}

# bs_fio_series LOGDIR JOBNAME SAMPLE_MS: the repetition's points, appended to BENCHSPEC_TIMESERIES (as
# benchspec run's timeseries.ndjson): fio's averaged bw (KiB/s) and IOPS logs, one file per job, each
# stamp rounded to the interval (fio stamps each log's window apart by a millisecond or so) and the values
# of one instant summed over jobs and directions — src/engines/fio/results.ts's seriesFromLogs.
bs_fio_series() {
  local dir=$1 name=$2 interval=$3 id
  if [[ -z ${BENCHSPEC_TIMESERIES:-} ]]; then return 0; fi
  bs_json id "$BS_CASE"
  shopt -s nullglob
  local bw=("$dir/${name}"_bw.*.log) iops=("$dir/${name}"_iops.*.log)
  shopt -u nullglob
  awk -F ', *' -v iv="$interval" '
    FNR == 1 { kind = FILENAME ~ /_bw\.[0-9]+\.log$/ ? "bw" : "iops" }
    NF >= 2 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[-0-9.eE+]+$/ {
      ms = $1 / iv; ms = (ms - int(ms) >= 0.5 ? int(ms) + 1 : int(ms)) * iv
      if (kind == "bw") tp[ms] += $2 * 1024; else io[ms] += $2
      seen[ms] = 1
    }
    END { for (ms in seen) printf "%.17g %.17g %.17g\n", ms, tp[ms] + 0, io[ms] + 0 }
  ' "${bw[@]}" "${iops[@]}" </dev/null | sort -g -k1,1 | awk -v id="$id" -v rep="$BS_REP" -v warm="$BS_WARM" '{
    printf "{\"case\":%s,\"repetition\":%s,\"warmup\":%s,\"t\":%.9g,\"throughput\":%.9g,\"iops\":%.9g}\n", id, rep, warm, $1 / 1000, $2, $3
  }' >>"$BENCHSPEC_TIMESERIES"
}
