# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_LATENCY is set here for the runtime (runtime.sh) to read
# Part of a compiled benchspec.sh that runs dd cases (src/engines/dd/shell.ts writes it). This header, up to
# the first blank line, is not copied into the script.

# bs_dd OP BS COUNT PARALLEL direct|cached DATA: one repetition of a dd case.
bs_dd() {
  local op=$1 bs=$2 count=$3 n=$4 direct=$5 data=$6 i f src=/dev/zero size need
  local bytes=$(($2 * $3))
  BS_DD_FILES=()
  if [[ -n $BS_DEVICE ]]; then
    size=$(($(cat "/sys/class/block/${BS_DEVICE##*/}/size") * 512))
    need=$((n * bytes))
    if ((need > size)); then bs_fail "$n × $bytes bytes do not fit on $BS_DEVICE ($size bytes)"; fi
    for ((i = 0; i < n; i++)); do BS_DD_FILES+=("$BS_DEVICE"); done
  else
    for ((i = 0; i < n; i++)); do BS_DD_FILES+=("$BS_DIR/dd.$i"); done
  fi
  if [[ $op == write ]]; then
    if [[ $data != zero ]]; then
      src=$BS_CASESTATE/dd.source
      if [[ ! -e $src.ready ]]; then
        bs_data "$src" "$bytes" "$data"
        : >"$src.ready"
      fi
    fi
  elif [[ -z $BS_DEVICE ]]; then
    if [[ ! -e $BS_CASESTATE/dd.files.ready ]]; then
      for f in "${BS_DD_FILES[@]}"; do
        bs_data "$f" "$bytes" "$data"
        dd if=/dev/null of="$f" bs=1 count=0 conv=notrunc,fdatasync status=none
      done
      : >"$BS_CASESTATE/dd.files.ready"
    fi
    for f in "${BS_DD_FILES[@]}"; do dd if="$f" iflag=nocache count=0 status=none; done
  fi
  bs_pool "$n" bs_dd_process "$op" "$bs" "$count" "$direct" "$src"
  bs_dd_results "$n" "$bytes" "$bs"
}

# One dd process of the pool (runs after the barrier); its summary goes to dd.WORKER.
bs_dd_process() {
  local w=$1 op=$2 bs=$3 count=$4 direct=$5 src=$6 f=${BS_DD_FILES[$1]}
  local args=()
  if [[ $op == write ]]; then
    args=("if=$src" "of=$f")
    if [[ $direct == direct ]]; then args+=(oflag=direct); fi
    if [[ -n $BS_DEVICE ]]; then args+=("seek=$((w * count))" conv=notrunc); fi
  else
    args=("if=$f" of=/dev/null)
    if [[ $direct == direct ]]; then args+=(iflag=direct); fi
    if [[ -n $BS_DEVICE ]]; then args+=("skip=$((w * count))"); fi
  fi
  exec dd "${args[@]}" "bs=$bs" "count=$count" 2>"$BS_REPDIR/dd.$w"
}

# bs_dd_results N EXPECTED BS: every process's bytes and seconds from dd's summary line
# ("N bytes (...) copied, S s, R"), the aggregate over the wall time, and the row.
bs_dd_results() {
  local n=$1 expected=$2 bs=$3 w b s err job total=0 error='' ok=true
  BS_JOBS=
  for ((w = 0; w < n; w++)); do
    read -r b s < <(awk '/ copied, / { b = $1; for (i = 2; i <= NF; i++) if ($i == "s,") s = $(i - 1) }
      END { printf "%.0f %.9g\n", b, s }' "$BS_REPDIR/dd.$w" 2>/dev/null || echo "0 0")
    err=
    if [[ ${BS_POOL_RC[w]} != 0 ]]; then
      err=$(awk '!/ records (in|out)$/ && !/ copied, / { print; exit }' "$BS_REPDIR/dd.$w" 2>/dev/null || true)
      err="dd exited with status ${BS_POOL_RC[w]}${err:+: $err}"
    elif [[ $b != "$expected" ]]; then
      err="dd copied $b of $expected bytes"
    fi
    if [[ -n $err ]]; then
      ok=false
      if [[ -z $error ]]; then error="process $w: $err"; fi
    fi
    bs_job_json job "$w" "$b" "$s" "$err"
    BS_JOBS+=${BS_JOBS:+,}$job
    total=$((total + b))
  done
  BS_JOBS="[$BS_JOBS]"
  BS_LATENCY='' BS_LATENCY_BINS=''
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$total" "$((total / bs))"
}
