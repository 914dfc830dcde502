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
  # On several hosts: the instant every copy starts this repetition at (hosts.sh).
  bs_hosts_gate
  bs_now t0
  # terse for the figures, json+ after it for the completion-latency bins (bs_fio_bins).
  (cd -- "$logs" && fio --output-format=terse,json+ --terse-version=3 --output="$out" --section="$name" "$job") || {
    local status=$?
    bs_fail "fio exited with status $status"
  }
  bs_now t1
  result=$(bs_fio_figures "$out" "$name" "$bs")
  if [[ $result == missing ]]; then bs_fail "fio printed no terse result for job $name"; fi
  local err bytes ops seconds
  read -r err bytes ops seconds BS_LATENCY <<<"$result"
  BS_LATENCY_BINS=$(bs_bins_json <"$out.bins")
  BS_JOBS=
  if [[ -n $sample ]]; then bs_fio_series "$logs" "$name" "$sample"; fi
  if [[ $err != 0 ]]; then
    bs_emit false "fio reported error $err" "$t0" "$t1" "$bytes" "$ops" "$seconds"
  else
    bs_emit true "" "$t0" "$t1" "$bytes" "$ops" "$seconds"
  fi
}

# bs_fio_figures OUTPUT JOBNAME BS: "ERROR BYTES OPS SECONDS LATENCY-JSON" of the job, or "missing": the
# figures from fio's terse line (src/engines/fio/shell.ts says which fields), the percentiles from its json+
# completion-latency bins of every direction together, as src/engines/fio/results.ts takes them (the first
# bin where the count reaches the percentile).
bs_fio_figures() {
  if [[ ! -s $1 ]]; then
    echo missing
    return
  fi
  bs_fio_bins "$1" | sort -n -k1,1 >"$1.bins"
  awk -v name="$2" -v bs="$3" '
    FNR == NR { split($0, kv, " "); n++; ns[n] = kv[1]; c[n] = kv[2]; count += kv[2]; next }
    function at(f,   i, seen) {
      for (i = 1; i <= n; i++) { seen += c[i]; if (seen >= f * count) return ns[i] / 1e9 }
      return ns[n] / 1e9
    }
    # fio json+ beside the terse line: the I/Os of each direction, for block sizes fio draws (BS 0).
    /^ *"(read|write|trim|sync)" : [{]/ { dir = $1; gsub(/"/, "", dir) }
    /^ *"total_ios" : [0-9]+/ { v = $3; sub(/,$/, "", v); ios[dir] += v }
    { split($0, t, ";") }
    t[1] == 3 && t[3] == name && !found {
      found = 1; err = t[5]
      rb = t[6] * 1024; wb = t[47] * 1024
      rt = t[9]; wt = t[50]
      rm = t[16] / 1e6; wm = t[57] / 1e6
    }
    END {
      if (!found) { print "missing"; exit }
      if (bs > 0) { ro = rb / bs; wo = wb / bs } else { ro = ios["read"]; wo = ios["write"] }
      ops = ro + wo
      secs = (rt > wt ? rt : wt) / 1000
      mean = ops > 0 ? (rm * ro + wm * wo) / ops : 0
      if (count == 0) { printf "%s %.0f %.0f %.9g {\"mean\":%.9g}\n", err, rb + wb, ops, secs, mean; exit }
      printf "%s %.0f %.0f %.9g {\"mean\":%.9g,\"p50\":%.17g,\"p90\":%.17g,\"p99\":%.17g,\"p99.9\":%.17g}\n", err, rb + wb, ops, secs, mean, at(0.5), at(0.9), at(0.99), at(0.999)
    }' "$1.bins" "$1"
}

# bs_fio_bins OUTPUT: the json+ completion-latency bins of every direction, "NANOSECONDS COUNT" a line
# (summed as src/engines/fio/results.ts sums them); fio prints its JSON indented, a key a line.
bs_fio_bins() {
  awk '
    /"(slat_ns|lat_ns)" : [{]/ { clat = 0; bins = 0 }
    /"clat_ns" : [{]/ { clat = 1 }
    clat && /"bins" : [{]/ { bins = 1; next }
    bins && /^ *[}]/ { bins = 0; clat = 0 }
    bins && /^ *"[0-9]+" : [0-9]+/ { v = $1; gsub(/"/, "", v); c = $3; sub(/,$/, "", c); n[v] += c }
    END { for (k in n) printf "%s %.0f\n", k, n[k] }
  ' "$1"
}

# bs_fio_together JOBFILE JOBNAME BS TARGET...: one repetition of an fio case over several targets at once:
# one fio per target, each with that target's place (BS_TPLACES, set by the case's group of targets),
# released together by the start barrier; one row for them all, made as benchspec run makes it
# (src/results/merge-hosts.ts): bytes and operations summed over the common window (each fio's I/O from the
# release for its own runtime), percentiles from their pooled bins (bs_bins_pooled), the mean weighted by
# each one's timed operations, each target's own figures in "targets".
bs_fio_together() {
  local job=$BS_HERE/$1 name=$2 bs=$3 i result err bytes ops seconds lat t1 part parts='' error=''
  local total=0 count=0 longest=0 ok=true start end e mean
  shift 3
  local targets=("$@")
  bs_pool "${#targets[@]}" bs_fio_part "$job" "$name"
  : >"$BS_REPDIR/bins"
  : >"$BS_REPDIR/means"
  for ((i = 0; i < ${#targets[@]}; i++)); do
    result=$(bs_fio_figures "$BS_REPDIR/fio.$i" "$name" "$bs")
    if [[ $result == missing ]]; then
      bs_first_error lat "$BS_REPDIR/fio.$i.err"
      err="fio exited with status ${BS_POOL_RC[i]}${lat:+: $lat}"
      bytes=0 ops=0 seconds=0 lat=''
    else
      read -r err bytes ops seconds lat <<<"$result"
      if [[ $err != 0 ]]; then err="fio reported error $err"; else err=; fi
      awk -v part="$i" '{ print part, $1, $2 }' "$BS_REPDIR/fio.$i.bins" >>"$BS_REPDIR/bins"
    fi
    if [[ -n $err ]]; then
      ok=false
      error+="${error:+; }${targets[i]}: $err"
    fi
    t1=$(awk -v t0="$BS_T0" -v s="$seconds" 'BEGIN { printf "%.0f", t0 + s * 1e6 }')
    bs_iso start "$BS_T0"
    bs_iso end "$t1"
    bs_json part "${targets[i]}"
    part='{"target":'"$part"',"ok":'"$([[ -z $err ]] && echo true || echo false)"
    if [[ -n $err ]]; then
      bs_json e "$err"
      part+=',"error":'"$e"
    fi
    part+=',"start":"'"$start"'","end":"'"$end"'","bytes":'"$bytes"',"ops":'"$ops"',"seconds":'"$seconds"
    part+=$(awk -v b="$bytes" -v o="$ops" -v s="$seconds" 'BEGIN { printf ",\"throughput\":%.9g,\"iops\":%.9g", (s > 0 ? b / s : 0), (s > 0 ? o / s : 0) }')
    if [[ -n $lat ]]; then part+=',"latency":'"$lat"; fi
    parts+=${parts:+,}$part'}'
    total=$((total + bytes))
    count=$((count + ops))
    if awk -v a="$seconds" -v b="$longest" 'BEGIN { exit !(a > b) }'; then longest=$seconds; fi
    if [[ -n $lat ]]; then
      mean=${lat#*\"mean\":}
      printf '%s %s\n' "$i" "${mean%%,*}" >>"$BS_REPDIR/means"
    fi
  done
  BS_LATENCY=$(bs_bins_pooled "$BS_REPDIR/bins" "$BS_REPDIR/means")
  BS_LATENCY_BINS=$(awk '{ print $2, $3 }' "$BS_REPDIR/bins" | bs_bins_json)
  BS_ROW_EXTRA=',"startSpread":0,"targets":['"$parts"']'
  if [[ -n ${BS_FIO_SAMPLE_MS:-} ]]; then bs_fio_together_series "$name" "$BS_FIO_SAMPLE_MS" "${targets[@]}"; fi
  t1=$(awk -v t0="$BS_T0" -v s="$longest" 'BEGIN { printf "%.0f", t0 + s * 1e6 }')
  bs_emit "$ok" "$error" "$BS_T0" "$t1" "$total" "$count" "$longest"
}

# One fio of bs_fio_together (runs after the barrier): target WORKER's place, its output in fio.WORKER.
bs_fio_part() {
  local w=$1 job=$2 name=$3 place=${BS_TPLACES[$1]}
  mkdir -p -- "$BS_REPDIR/logs.$w"
  if [[ $place == dev:* ]]; then
    export BENCHSPEC_DEVICE=${place#dev:}
    BENCHSPEC_DEVICE=${BENCHSPEC_DEVICE//:/\\:}
  else
    export BENCHSPEC_DIR=${place#dir:}
    BENCHSPEC_DIR=${BENCHSPEC_DIR//:/\\:}
  fi
  cd -- "$BS_REPDIR/logs.$w" || exit
  exec fio --output-format=terse,json+ --terse-version=3 --output="$BS_REPDIR/fio.$w" --section="$name" "$job" \
    2>"$BS_REPDIR/fio.$w.err"
}

# bs_fio_series LOGDIR JOBNAME SAMPLE_MS: the repetition's points, appended to BENCHSPEC_TIMESERIES (as
# benchspec run's timeseries.ndjson): fio's averaged bw (KiB/s) and IOPS logs, one file per job, each
# stamp rounded to the interval (fio stamps each log's window apart by a millisecond or so) and the values
# of one instant summed over jobs and directions — src/engines/fio/results.ts's seriesFromLogs.
bs_fio_series() {
  if [[ -z ${BENCHSPEC_TIMESERIES:-} ]]; then return 0; fi
  bs_fio_points "$@" | bs_series_rows >>"$BENCHSPEC_TIMESERIES"
}

# bs_fio_points LOGDIR JOBNAME SAMPLE_MS: the job's points, "MS BYTES/S OPS/S" a line in time order.
bs_fio_points() {
  local dir=$1 name=$2 interval=$3
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
  ' "${bw[@]}" "${iops[@]}" </dev/null | sort -g -k1,1
}

# bs_series_rows [MEMBER-JSON]: "MS BYTES/S OPS/S" lines as the repetition's timeseries rows (with
# MEMBER-JSON, e.g. "target":"a", in each).
bs_series_rows() {
  local id
  bs_json id "$BS_CASE"
  awk -v id="$id" -v rep="$BS_REP" -v warm="$BS_WARM" -v member="${1:+,$1}" '{
    printf "{\"case\":%s,\"repetition\":%s,\"warmup\":%s%s,\"t\":%.9g,\"throughput\":%.9g,\"iops\":%.9g}\n", id, rep, warm, member, $1 / 1000, $2, $3
  }'
}

# bs_fio_together_series JOBNAME SAMPLE_MS TARGET...: the series of a case over several targets at once, as
# benchspec run's (src/results/merge-series.ts, mergePartSeries): each target's own points (from its fio's
# logs in logs.INDEX, with "target"), then their sum on a grid of SAMPLE_MS — each point the rate over the
# step that ends at it, spread over the grid's bins by overlap. Every fio started at the release: no offsets.
bs_fio_together_series() {
  local name=$1 interval=$2 i t
  shift 2
  if [[ -z ${BENCHSPEC_TIMESERIES:-} ]]; then return 0; fi
  : >"$BS_REPDIR/points"
  for ((i = 1; i <= $#; i++)); do
    bs_fio_points "$BS_REPDIR/logs.$((i - 1))" "$name" "$interval" >"$BS_REPDIR/points.$i"
    bs_json t "${!i}"
    bs_series_rows '"target":'"$t" <"$BS_REPDIR/points.$i" >>"$BENCHSPEC_TIMESERIES"
    awk -v part="$i" '{ print part, $0 }' "$BS_REPDIR/points.$i" >>"$BS_REPDIR/points"
  done
  awk -v step="$interval" '
    $1 != part { part = $1; previous = 0 }
    {
      t = $2; from = (previous > t - step ? previous : t - step); previous = t
      if (t > end) end = t
      for (k = int(from / step); k * step < t; k++) {
        lo = (from > k * step ? from : k * step); hi = (t < (k + 1) * step ? t : (k + 1) * step)
        if (hi - lo <= 0) continue
        tp[k] += $3 * (hi - lo); io[k] += $4 * (hi - lo)
      }
    }
    END {
      count = end / step - 1e-9; count = (count <= 0 ? 0 : count == int(count) ? count : int(count) + 1)
      for (k = 0; k < count; k++) {
        e = ((k + 1) * step < end ? (k + 1) * step : end); s = e - k * step
        printf "%.17g %.17g %.17g\n", e, tp[k] / s, io[k] / s
      }
    }' "$BS_REPDIR/points" | bs_series_rows >>"$BENCHSPEC_TIMESERIES"
}
