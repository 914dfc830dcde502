/**
 * The dd backend (shell target only): N parallel `dd` processes behind a start barrier, as the shared-storage
 * and MinIO drive tests ran them by hand. Each process writes (or reads back) its own file of bs × count
 * bytes — on a block device its own region, at offset i × count blocks — and reports its bytes and seconds
 * from dd's own summary; the row's seconds are the wall time from the barrier's release to the last exit.
 *
 * Writes read /dev/zero for `data: zero`, otherwise a payload file generated before the first repetition, so
 * dd's speed is not /dev/urandom's. Reads need the files first: they are written in an unmeasured setup step
 * (with fdatasync), and their page cache is dropped (dd iflag=nocache) before every repetition.
 */
import type { Case } from "../../plan/types.js";
import { shellDataMode } from "../../compile/shell/data-mode.js";
import type { Backend, CompileContext } from "../types.js";
import type { ShellScriptWriter } from "../../compile/writer.js";
import { pathTool } from "../../platform/tool-version.js";

/** The number of processes: the tuned start value when parallelism is autotuned (the script does not tune). */
function processes(c: Case): number {
  const { autotune, parallel } = c.params;
  return autotune?.param === "parallel" ? autotune.start : parallel!;
}

function ddShellCase(c: Case, w: ShellScriptWriter, _ctx: CompileContext): void {
  const p = c.params;
  if (p.autotune) w.comment(`autotune is not run by this script: ${p.autotune.param} = ${p.autotune.start}`);
  const n = processes(c);
  w.comment(`${n} × dd ${c.op} of ${p.bs} × ${p.count} bytes${p.direct ? ", O_DIRECT" : ""}`);
  w.line(
    ["bs_dd", c.op, p.bs!, p.count!, n, p.direct ? "direct" : "cached", shellDataMode(c)]
      .map(w.quote)
      .join(" "),
  );
}

/** The bash functions every dd case calls. */
export function ddShellLibrary(w: ShellScriptWriter): void {
  for (const line of DD_LIBRARY.replace(/^\n/, "").replace(/\n$/, "").split("\n")) w.line(line);
}

const DD_LIBRARY = `
# bs_dd OP BS COUNT PARALLEL direct|cached DATA: one repetition of a dd case.
bs_dd() {
  local op=$1 bs=$2 count=$3 n=$4 direct=$5 data=$6 i f src=/dev/zero size need
  local bytes=$(($2 * $3))
  BS_DD_FILES=()
  if [[ -n $BS_DEVICE ]]; then
    size=$(($(cat "/sys/class/block/\${BS_DEVICE##*/}/size") * 512))
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
      for f in "\${BS_DD_FILES[@]}"; do
        bs_data "$f" "$bytes" "$data"
        dd if=/dev/null of="$f" bs=1 count=0 conv=notrunc,fdatasync status=none
      done
      : >"$BS_CASESTATE/dd.files.ready"
    fi
    for f in "\${BS_DD_FILES[@]}"; do dd if="$f" iflag=nocache count=0 status=none; done
  fi
  bs_pool "$n" bs_dd_process "$op" "$bs" "$count" "$direct" "$src"
  bs_dd_results "$n" "$bytes" "$bs"
}

# One dd process of the pool (runs after the barrier); its summary goes to dd.WORKER.
bs_dd_process() {
  local w=$1 op=$2 bs=$3 count=$4 direct=$5 src=$6 f=\${BS_DD_FILES[$1]}
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
  exec dd "\${args[@]}" "bs=$bs" "count=$count" 2>"$BS_REPDIR/dd.$w"
}

# bs_dd_results N EXPECTED BS: every process's bytes and seconds from dd's summary line
# ("N bytes (...) copied, S s, R"), the aggregate over the wall time, and the row.
bs_dd_results() {
  local n=$1 expected=$2 bs=$3 w b s err job total=0 error='' ok=true
  BS_JOBS=
  for ((w = 0; w < n; w++)); do
    read -r b s < <(awk '/ copied, / { b = $1; for (i = 2; i <= NF; i++) if ($i == "s,") s = $(i - 1) }
      END { printf "%.0f %.9g\\n", b, s }' "$BS_REPDIR/dd.$w" 2>/dev/null || echo "0 0")
    err=
    if [[ \${BS_POOL_RC[w]} != 0 ]]; then
      err=$(awk '!/ records (in|out)$/ && !/ copied, / { print; exit }' "$BS_REPDIR/dd.$w" 2>/dev/null || true)
      err="dd exited with status \${BS_POOL_RC[w]}\${err:+: $err}"
    elif [[ $b != "$expected" ]]; then
      err="dd copied $b of $expected bytes"
    fi
    if [[ -n $err ]]; then
      ok=false
      if [[ -z $error ]]; then error="process $w: $err"; fi
    fi
    bs_job_json job "$w" "$b" "$s" "$err"
    BS_JOBS+=\${BS_JOBS:+,}$job
    total=$((total + b))
  done
  BS_JOBS="[$BS_JOBS]"
  BS_LATENCY=
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$total" "$((total / bs))"
}
`;

export const ddBackend: Backend = {
  engine: "dd",
  targets: ["shell"],
  shellTools: ["dd"],
  shellLibrary: ddShellLibrary,
  shellCase: ddShellCase,
  tools: [pathTool("dd")],
  libraries: [],
  executor: async () => (await import("./run.js")).ddExecutor,
};
