/**
 * The `shell` compile target: ONE bash script for the whole spec that needs only bash ≥ 5, coreutils, awk and
 * the CLIs of the engines the plan uses (each Backend's `shellTools`). It prints one NDJSON result row
 * (src/results/row.ts, source "shell") per case × repetition on stdout; progress goes to stderr.
 *
 * The script, in the order it is written:
 *   1. header       usage, the environment variables that place each target, strict mode, LC_ALL=C
 *   2. runtime      logging, the one JSON-escaping helper, clock, data files, start barrier, worker pool,
 *                   result rows, and the child process that runs one repetition in its own process group
 *   3. engines      each engine's shell library (Backend.shellLibrary), for the engines the plan uses
 *   4. targets      per used target: setup (once, with the safety checks), enter (per repetition, in the
 *                   child), leave (after each case), release (on exit, also after Ctrl-C)
 *   5. cases        one function per case that runs one repetition and prints its row (Backend.shellCase)
 *   6. main         tool check, targets, warm-up then measured repetitions of every case, exit status
 *
 * Every user value reaches the script through shQuote (ShellScriptWriter.quote/assign); `${env:NAME}`
 * references become `"${NAME}"` expansions, so secrets are read at run time and never written here.
 */
import { BACKENDS } from "../../engines/index.js";
import type { Case, Plan } from "../../plan/types.js";
import { WRITING_OPS } from "../../spec/engines.js";
import type { Target } from "../../spec/schema.js";
import type { Artifact, CompileContext } from "../../engines/types.js";
import { ShellScriptWriter, shQuote, UnsafeValueError } from "../writer.js";

export const SHELL_SCRIPT_PATH = "benchspec.sh";

/** Tools every script uses besides bash builtins (coreutils are assumed; awk is checked). */
const BASE_TOOLS = ["awk"] as const;

/** The environment variable that places a target: BENCHSPEC_TARGET_<name, non-alphanumerics as "_">. */
export function targetEnvVar(name: string): string {
  return `BENCHSPEC_TARGET_${name.replace(/[^A-Za-z0-9]/g, "_")}`;
}

/**
 * A spec string as one shell word: literal text single-quoted, each `${env:NAME}` a double-quoted expansion
 * that stops the script with a clear message when the variable is unset or empty.
 */
export function shellWord(text: string, what: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    if (match.index > last) parts.push(shQuote(text.slice(last, match.index)));
    parts.push(envExpansion(match[1]!, what));
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(shQuote(text.slice(last)));
  return parts.join("");
}

/**
 * `LHS=<shell word of a spec string>`. A `$` or a backtick in the user's text is literal inside its single
 * quotes; shellcheck's SC2016 ("expressions don't expand in single quotes") is told that this is the intent.
 */
function assignWord(w: ShellScriptWriter, lhs: string, text: string, what: string): void {
  if (/[$`]/.test(text.replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g, ""))) {
    w.line("# shellcheck disable=SC2016 # the user's value, single-quoted on purpose: never expanded");
  }
  w.line(`${lhs}=${shellWord(text, what)}`);
}

function envExpansion(name: string, what: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new UnsafeValueError(`bad environment variable name ${name}`);
  if (!/^[A-Za-z0-9 _.,-]*$/.test(what)) throw new UnsafeValueError(`bad message ${what}`);
  return `"\${${name}:?is not set or empty, needed for ${what}}"`;
}

/** Only `${env:NAME}` and nothing else: the one form of a secret that may be referenced from the script. */
const PURE_ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

export function compileShellScript(plan: Plan, ctx: CompileContext): Artifact {
  const w = new ShellScriptWriter(ctx);
  const used = usedTargets(plan);
  const engines = [...new Set(plan.cases.map((c) => c.engine))].sort();

  writeHeader(w, plan, used);
  w.line("set -euo pipefail");
  w.line();
  text(w, RUNTIME_CHECKS);
  w.assign("BS_SPEC", plan.name);
  w.assign("BS_SPEC_HASH", plan.specHash);
  w.assign("BS_GENERATOR", `benchspec ${ctx.version}`);
  w.assign("BS_CASES", plan.cases.length);
  w.assign("BS_ROW_SPEC", JSON.stringify({ spec: plan.name, specHash: plan.specHash }).slice(1, -1));
  text(w, RUNTIME);

  for (const engine of engines) {
    w.line();
    w.comment(`---------- engine: ${engine} ----------`);
    BACKENDS[engine].shellLibrary(w);
  }

  w.line();
  w.comment("---------- targets ----------");
  for (const [name, target, index] of used) writeTarget(w, name, target, index);

  w.line();
  w.comment("---------- cases: each function runs one repetition and prints its result row ----------");
  for (const c of plan.cases) writeCase(w, c, plan, ctx);

  w.line();
  w.comment("---------- main ----------");
  w.block("bs_main() {", () => {
    const tools = new Set<string>(BASE_TOOLS);
    for (const engine of engines) for (const tool of BACKENDS[engine].shellTools) tools.add(tool);
    w.line(`bs_require_tools ${[...tools].sort().map(shQuote).join(" ")}`);
    w.line("bs_init");
    for (const [, , index] of used) {
      w.line(`BS_RELEASE+=(bs_target_${index}_release)`);
      w.line(`bs_target_${index}_setup`);
    }
    for (const c of plan.cases) {
      const index = used.find(([name]) => name === c.target)![2];
      const p = c.params;
      w.line(
        `bs_run_case ${c.index} ${shQuote(c.id)} bs_target_${index} ${shQuote(metaJson(c))} ${p.repeat} ${p.warmup}`,
      );
    }
    w.line("bs_finish");
  });
  w.line('bs_main "$@"');
  return { path: SHELL_SCRIPT_PATH, content: w.toString() };
}

/** The targets the cases use, in the spec's order, with a stable index for function names. */
function usedTargets(plan: Plan): [string, Target, number][] {
  const names = new Set(plan.cases.map((c) => c.target));
  return Object.entries(plan.targets)
    .filter(([name]) => names.has(name))
    .map(([name, target], index) => [name, target, index]);
}

function writeHeader(w: ShellScriptWriter, plan: Plan, used: [string, Target, number][]) {
  if (plan.description !== undefined) w.comment(plan.description);
  w.line("#");
  w.comment("Usage: ./benchspec.sh > results.ndjson   (one JSON result row per case × repetition on stdout)");
  w.comment("Needs bash >= 5, coreutils, awk and the tools checked below. Exit status: 0 when every");
  w.comment("repetition succeeded, 1 when one failed (its row has ok:false), 127 when a tool is missing,");
  w.comment("130 after Ctrl-C. Everything the script creates is removed on exit, also after Ctrl-C.");
  w.line("#");
  w.comment("Where the targets are (environment variables override the spec):");
  for (const [name, target] of used) {
    const variable = targetEnvVar(name);
    const place: Record<Target["kind"], string> = {
      fs: "a directory (files go into a fresh benchspec.* subdirectory of it; default: the spec's path or a new temp dir)",
      block: `a block device${target.kind === "block" && target.destructive ? " — ITS CONTENTS ARE DESTROYED" : ""} (default: the spec's device)`,
      s3: "the S3 endpoint URL (credentials: the AWS environment/profile chain unless the spec names variables)",
      ipfs: "the Kubo RPC API address, e.g. http://127.0.0.1:5001 or /ip4/127.0.0.1/tcp/5001",
    };
    w.comment(`  ${variable}: ${place[target.kind]}`);
    if (target.description !== undefined) w.comment(`    ${target.description}`);
  }
  w.comment("Also: BENCHSPEC_TMPDIR (scratch space for payload files; default TMPDIR or /tmp),");
  w.comment("BENCHSPEC_LOG_DIR (keep fio's logs there), BENCHSPEC_RUN_ID (the run's id in S3 keys).");
}

function writeTarget(w: ShellScriptWriter, name: string, target: Target, index: number) {
  const fn = `bs_target_${index}`;
  const variable = targetEnvVar(name);
  const what = `target ${name}`;
  w.line();
  w.comment(`target ${name} (${target.kind})${target.description ? `: ${target.description}` : ""}`);
  const keep = "keep" in target && target.keep === true;
  switch (target.kind) {
    case "fs":
      w.block(`${fn}_setup() {`, () => {
        w.line(`local root=\${${variable}:-}`);
        if (target.path !== undefined) {
          w.block("if [[ -z $root ]]; then", () => assignWord(w, "root", target.path!, `${what} path`), "fi");
        }
        w.line(`bs_fs_setup ${shQuote(name)} "$root" ${keep ? "keep" : "remove"}`);
      });
      w.line(`${fn}_enter() { bs_fs_enter ${shQuote(name)}; }`);
      w.line(`${fn}_leave() { bs_fs_leave ${shQuote(name)} ${keep ? "keep" : "remove"}; }`);
      break;
    case "block":
      w.block(`${fn}_setup() {`, () => {
        w.line(`local device=\${${variable}:-}`);
        w.block(
          "if [[ -z $device ]]; then",
          () => assignWord(w, "device", target.device, `${what} device`),
          "fi",
        );
        w.line(`bs_block_setup ${shQuote(name)} "$device"`);
      });
      w.line(`${fn}_enter() { BS_DEVICE=\${BS_TDEV[${shQuote(name)}]}; }`);
      w.line(`${fn}_leave() { :; }`);
      break;
    case "s3":
      w.block(`${fn}_setup() {`, () => {
        w.line(`local url=\${${variable}:-}`);
        if (target.endpoint !== undefined) {
          w.block(
            "if [[ -z $url ]]; then",
            () => assignWord(w, "url", target.endpoint!, `${what} endpoint`),
            "fi",
          );
        } else {
          w.block(
            "if [[ -z $url ]]; then",
            () =>
              w.line(
                `bs_die ${shQuote(`target ${name} is "launch: minio": start an S3 server (e.g. minio server DIR) and set ${variable}=http://HOST:PORT and the AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY it accepts`)}`,
              ),
            "fi",
          );
        }
        w.line(`BS_TURL[${shQuote(name)}]=$url`);
        if (target.bucket !== undefined)
          assignWord(w, `BS_TBUCKET[${shQuote(name)}]`, target.bucket, `${what} bucket`);
        else w.line(`BS_TBUCKET[${shQuote(name)}]=benchspec`);
        if (target.region !== undefined)
          assignWord(w, `BS_TREGION[${shQuote(name)}]`, target.region, `${what} region`);
        else w.line(`BS_TREGION[${shQuote(name)}]=\${AWS_REGION:-\${AWS_DEFAULT_REGION:-us-east-1}}`);
        w.line(`(${fn}_enter && bs_s3_bucket_setup ${shQuote(name)})`);
      });
      w.block(`${fn}_enter() {`, () => {
        const credentials = [
          ["accessKey", "AWS_ACCESS_KEY_ID"],
          ["secretKey", "AWS_SECRET_ACCESS_KEY"],
        ] as const;
        for (const [key, variableName] of credentials) {
          const value = target[key];
          if (value === undefined) continue;
          const ref = PURE_ENV_REF.exec(value);
          if (ref) {
            w.line(`export ${variableName}=${envExpansion(ref[1]!, `${what} ${key}`)}`);
          } else {
            // A secret written into the spec is never copied into an artifact: the user supplies it at run time.
            w.comment(`${key} is written literally in the spec and is not copied here: set ${variableName}`);
            w.line(
              `: "\${${variableName}:?must be set: the spec's ${key} of ${what} is not copied into this script}"`,
            );
          }
        }
        w.line(`BS_S3_URL=\${BS_TURL[${shQuote(name)}]}`);
        w.line(`BS_S3_BUCKET=\${BS_TBUCKET[${shQuote(name)}]}`);
        w.line(`BS_S3_REGION=\${BS_TREGION[${shQuote(name)}]}`);
      });
      w.line(`${fn}_leave() { :; }`);
      w.line(`${fn}_release() { (${fn}_enter && bs_s3_bucket_release ${shQuote(name)}); }`);
      break;
    case "ipfs":
      w.block(`${fn}_setup() {`, () => {
        w.line(`local api=\${${variable}:-}`);
        if (target.api !== undefined) {
          w.block("if [[ -z $api ]]; then", () => assignWord(w, "api", target.api!, `${what} api`), "fi");
        } else {
          w.block(
            "if [[ -z $api ]]; then",
            () =>
              w.line(
                `bs_die ${shQuote(`target ${name} is "launch: kubo": start a Kubo daemon (ipfs daemon --offline) and set ${variable} to its API address, e.g. http://127.0.0.1:5001`)}`,
              ),
            "fi",
          );
          if (target.fresh !== undefined && target.fresh !== "once") {
            w.line(
              `bs_log ${shQuote(`note: target ${name} asks for a fresh node ${target.fresh}; this script uses the node at ${variable} as it is`)}`,
            );
          }
        }
        w.line(`BS_TAPI[${shQuote(name)}]=$api`);
        w.line(`${fn}_enter`);
        w.line(`bs_ipfs_target_check ${shQuote(name)}`);
      });
      w.line(`${fn}_enter() { BS_IPFS_API=\${BS_TAPI[${shQuote(name)}]}; }`);
      w.line(`${fn}_leave() { :; }`);
      break;
  }
  if (target.kind !== "s3") w.line(`${fn}_release() { :; }`);
}

function writeCase(w: ShellScriptWriter, c: Case, plan: Plan, ctx: CompileContext) {
  const p = c.params;
  w.line();
  w.comment(
    `case ${c.index + 1}/${plan.cases.length}: ${c.id} (engine ${c.engine}, ${p.repeat} measured, ${p.warmup} warm-up)`,
  );
  w.block(`bs_case_${c.index}() {`, () => {
    const target = plan.targets[c.target]!;
    const writes = WRITING_OPS.has(c.op) || p.precondition !== undefined;
    if (target.kind === "block" && writes && target.destructive !== true) {
      // Validation already refuses this; the script refuses it again rather than trust its input.
      w.line(
        `bs_fail ${shQuote(`refusing to write to the block device of target ${c.target}: the spec does not say destructive: true`)}`,
      );
      return;
    }
    BACKENDS[c.engine].shellCase(c, w, ctx);
  });
}

/** The row members that are fixed at compile time for a case, as JSON text without the braces. */
function metaJson(c: Case): string {
  const meta = {
    case: c.id,
    workload: c.workload,
    target: c.target,
    engine: c.engine,
    op: c.op,
    params: c.params,
  };
  return JSON.stringify(meta).slice(1, -1);
}

/** Writes a block of the script's own code (no user values) line by line. */
function text(w: ShellScriptWriter, code: string) {
  for (const line of code.replace(/^\n/, "").replace(/\n$/, "").split("\n")) w.line(line);
}

/** Checks that run before anything else, also on an old bash. */
const RUNTIME_CHECKS = `
if ((BASH_VERSINFO[0] < 5)); then
  echo "benchspec: this script needs bash 5 or newer (this is bash $BASH_VERSION)" >&2
  exit 127
fi
shopt -s inherit_errexit
export LC_ALL=C
`;

/** The runtime library every script carries. Only fixed code: user values come in as arguments. */
const RUNTIME = `
BS_RUN_ID=
BS_FAILURES=0
BS_CHILD=
BS_STATE=
BS_CLEAN=()
BS_RELEASE=()
BS_LATENCY=
BS_JOBS=
BS_ROW=
BS_REP_CLEANUP=
# Where the current case's target is, per kind; the libraries of the engines a spec uses read some of them.
# shellcheck disable=SC2034
declare BS_DIR='' BS_DEVICE='' BS_HERE=''
# shellcheck disable=SC2034
declare -A BS_TDIR=() BS_TDEV=() BS_TURL=() BS_TBUCKET=() BS_TREGION=() BS_TAPI=()

bs_log() { printf 'benchspec: %s\\n' "$*" >&2; }
bs_die() {
  bs_log "$*"
  exit 1
}

# Stops the current repetition with an error message for its result row.
bs_fail() {
  printf '%s\\n' "$*" >"$BS_REPDIR/error"
  bs_log "$BS_CASE: $*"
  exit 1
}

bs_require_tools() {
  local tool missing=()
  for tool in "$@"; do
    command -v -- "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if ((\${#missing[@]} > 0)); then
    bs_log "missing required tools: \${missing[*]}"
    bs_log "install them (dd: coreutils, fio: fio, aws: awscli, ipfs: kubo, awk: mawk or gawk) and run again"
    exit 127
  fi
}

# bs_json VAR TEXT: TEXT as a JSON string. The one JSON-escaping helper: every string in a row that is not
# fixed at compile time goes through it.
bs_json() {
  local s=$2 b=$'\\\\' q='"' ctl
  s=\${s//"$b"/"$b$b"}
  s=\${s//"$q"/"$b$q"}
  s=\${s//$'\\n'/"$b"n}
  s=\${s//$'\\r'/"$b"r}
  s=\${s//$'\\t'/"$b"t}
  ctl=$(printf '[\\001-\\037\\177]')
  s=\${s//$ctl/ }
  printf -v "$1" '"%s"' "$s"
}

bs_is_number() { [[ $1 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# bs_now VAR: microseconds since the epoch.
bs_now() { printf -v "$1" '%s' "\${EPOCHREALTIME//[!0-9]/}"; }

# bs_iso VAR MICROSECONDS: ISO 8601 in UTC.
bs_iso() {
  local s=$(($2 / 1000000)) us=$(($2 % 1000000)) day
  day=$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%S)
  printf -v "$1" '%s.%06dZ' "$day" "$us"
}

# bs_first_error VAR FILE: the first line of a tool's error output, for a row's "error".
bs_first_error() {
  local line=
  if [[ -s $2 ]]; then IFS= read -r line <"$2" || true; fi
  printf -v "$1" '%s' "\${line:0:500}"
}

# bs_data FILE SIZE MODE: a payload file. random: shred's generator (fast, incompressible, different on every
# call, so every repetition writes unique data); zero; compressible:P: P% zeros in every 1 MiB block.
bs_data() {
  local file=$1 size=$2 mode=$3
  : >"$file"
  case $mode in
    random) if ((size > 0)); then shred -n 1 -s "$size" -- "$file"; fi ;;
    zero) head -c "$size" /dev/zero >"$file" ;;
    compressible:*) bs_data_compressible "$file" "$size" "\${mode#compressible:}" ;;
    *) bs_die "unknown data mode $mode" ;;
  esac
}

bs_data_compressible() {
  local file=$1 size=$2 pct=$3 left n r
  local pool=$file.pool
  : >"$pool"
  if ((size > 0)); then shred -n 1 -s "$size" -- "$pool"; fi
  left=$size
  {
    while ((left > 0)); do
      n=$((left < 1048576 ? left : 1048576))
      r=$((n - n * pct / 100))
      if ((r > 0)); then head -c "$r" <&3; fi
      if ((n > r)); then head -c "$((n - r))" /dev/zero; fi
      left=$((left - n))
    done
  } 3<"$pool" >"$file"
  rm -f -- "$pool"
}

# The start barrier: workers block reading a FIFO until the parent, once all of them are waiting, closes it.
bs_barrier_init() {
  BS_BARRIER=$BS_REPDIR/barrier
  BS_BARRIER_N=$1
  rm -rf -- "$BS_BARRIER"
  mkdir -- "$BS_BARRIER"
  mkfifo -- "$BS_BARRIER/go"
  # Read-write open never blocks (Linux): the FIFO has a writer before any worker opens it.
  exec 4<>"$BS_BARRIER/go"
}

# In a worker: announce readiness, then wait for the release.
bs_barrier_wait() {
  exec 4>&-
  exec 3<"$BS_BARRIER/go"
  : >"$BS_BARRIER/ready.$1"
  read -r -u 3 _ || true
  exec 3<&-
}

# In the parent: wait until every worker is waiting, then release them all at once; sets BS_T0.
bs_barrier_release() {
  local ready f waited=0
  while :; do
    ready=0
    for f in "$BS_BARRIER"/ready.*; do
      if [[ -e $f ]]; then ready=$((ready + 1)); fi
    done
    if ((ready >= BS_BARRIER_N)); then break; fi
    waited=$((waited + 1))
    if ((waited > 12000)); then bs_fail "workers did not reach the start barrier within 60 s"; fi
    sleep 0.005
  done
  bs_now BS_T0
  exec 4>&-
}

# bs_pool N FN ARGS...: runs "FN WORKER ARGS..." in N background workers started together behind the
# barrier. Sets BS_T0 (release), BS_T1 (last exit), BS_POOL_RC (exit status per worker).
bs_pool() {
  local n=$1 fn=$2 w pid rc
  shift 2
  local pids=()
  bs_barrier_init "$n"
  for ((w = 0; w < n; w++)); do
    {
      bs_barrier_wait "$w"
      "$fn" "$w" "$@"
    } &
    pids+=("$!")
  done
  bs_barrier_release
  BS_POOL_RC=()
  for pid in "\${pids[@]}"; do
    rc=0
    wait "$pid" || rc=$?
    BS_POOL_RC+=("$rc")
  done
  bs_now BS_T1
}

# bs_op WORKER BYTES OUT CMD...: one timed operation of a pool worker, its stdout to OUT. Records
# "worker start end bytes ok" in ops.WORKER; a failure is recorded (first message in error.WORKER), not fatal.
bs_op() {
  local w=$1 bytes=$2 out=$3 t0 t1 rc=0
  shift 3
  bs_now t0
  "$@" >"$out" 2>"$BS_REPDIR/op.$w.err" || rc=$?
  bs_now t1
  if ((rc == 0)); then
    printf '%s %s %s %s 1\\n' "$w" "$t0" "$t1" "$bytes" >>"$BS_REPDIR/ops.$w"
  else
    printf '%s %s %s 0 0\\n' "$w" "$t0" "$t1" >>"$BS_REPDIR/ops.$w"
    if [[ ! -s $BS_REPDIR/error.$w ]]; then
      printf '%s (exit %s)\\n' "$(head -c 500 "$BS_REPDIR/op.$w.err" | tr '\\n' ' ')" "$rc" >"$BS_REPDIR/error.$w"
    fi
  fi
}

# bs_job_json VAR JOB BYTES SECONDS [ERROR]: one entry of a row's "jobs".
bs_job_json() {
  local tp e=
  tp=$(awk -v b="$3" -v s="$4" 'BEGIN { printf "%.9g", (s > 0 ? b / s : 0) }')
  if [[ -n \${5:-} ]]; then
    bs_json e "$5"
    e=",\\"error\\":$e"
  fi
  printf -v "$1" '{"job":%s,"bytes":%s,"seconds":%s,"throughput":%s%s}' "$2" "$3" "$4" "$tp" "$e"
}

# bs_pool_stats N: totals of a pool's ops records. Sets BS_BYTES, BS_OPS, BS_FAILED_OPS, BS_LATENCY, BS_JOBS,
# BS_ERROR (the first worker error).
bs_pool_stats() {
  local n=$1 all=$BS_REPDIR/ops.all w line bytes seconds err job
  BS_ERROR=
  : >"$all"
  for ((w = 0; w < n; w++)); do
    if [[ -e $BS_REPDIR/ops.$w ]]; then cat -- "$BS_REPDIR/ops.$w" >>"$all"; fi
  done
  # shellcheck disable=SC2034 # BS_BYTES and BS_FAILED_OPS are for the caller
  read -r BS_BYTES BS_OPS BS_FAILED_OPS < <(awk '
    $5 == 1 { ok++; bytes += $4 }
    $5 != 1 { failed++ }
    END { printf "%.0f %.0f %.0f\\n", bytes, ok, failed }' "$all")
  BS_LATENCY=
  if ((BS_OPS > 0)); then
    BS_LATENCY=$(awk '$5 == 1 { printf "%.9g\\n", ($3 - $2) / 1e6 }' "$all" | sort -g | awk '
      function q(p,   i) { i = int(p * NR); if (i < p * NR) i++; if (i < 1) i = 1; return v[i] }
      { v[NR] = $1; sum += $1 }
      END { printf "{\\"mean\\":%.9g,\\"p50\\":%.9g,\\"p90\\":%.9g,\\"p99\\":%.9g,\\"p99.9\\":%.9g}", sum / NR, q(0.5), q(0.9), q(0.99), q(0.999) }')
  fi
  BS_JOBS=
  for ((w = 0; w < n; w++)); do
    read -r bytes seconds < <(awk -v w="$w" -v t0="$BS_T0" '
      $1 == w { if ($5 == 1) b += $4; if ($3 > end) end = $3 }
      END { printf "%.0f %.9g\\n", b, (end > t0 ? (end - t0) / 1e6 : 0) }' "$all")
    err=
    if [[ -s $BS_REPDIR/error.$w ]]; then bs_first_error err "$BS_REPDIR/error.$w"; fi
    if [[ -z $err && \${BS_POOL_RC[w]:-0} != 0 ]]; then err="worker exited with status \${BS_POOL_RC[w]}"; fi
    if [[ -n $err && -z $BS_ERROR ]]; then BS_ERROR="worker $w: $err"; fi
    bs_job_json job "$w" "$bytes" "$seconds" "$err"
    BS_JOBS+=\${BS_JOBS:+,}$job
  done
  BS_JOBS="[$BS_JOBS]"
}

# bs_emit OK ERROR T0 T1 BYTES OPS [SECONDS]: prints the repetition's result row (latency and jobs from
# BS_LATENCY and BS_JOBS). SECONDS defaults to T1 - T0; throughput and IOPS are computed here.
bs_emit() {
  local ok=$1 error=$2 t0=$3 t1=$4 bytes=$5 ops=$6 seconds=\${7:-} v nums tp iops start end e row
  for v in "$t0" "$t1" "$bytes" "$ops" \${seconds:+"$seconds"}; do
    if ! bs_is_number "$v"; then
      ok=false error="not a number in the measurement: $v\${error:+; $error}"
      bytes=0 ops=0 seconds=0
      break
    fi
  done
  nums=$(awk -v t0="$t0" -v t1="$t1" -v b="$bytes" -v o="$ops" -v s="$seconds" 'BEGIN {
    if (s == "") s = (t1 - t0) / 1e6
    printf "%.0f %.0f %.9g %.9g %.9g\\n", b, o, s, (s > 0 ? b / s : 0), (s > 0 ? o / s : 0) }')
  read -r bytes ops seconds tp iops <<<"$nums"
  for v in "$seconds" "$tp" "$iops"; do
    if ! bs_is_number "$v"; then
      ok=false error="not a number in the measurement: $v\${error:+; $error}"
      seconds=0 tp=0 iops=0
      break
    fi
  done
  bs_iso start "$t0"
  bs_iso end "$t1"
  row='{"v":1,"source":"shell",'"$BS_ROW_SPEC,$BS_META"',"repetition":'"$BS_REP"',"warmup":'"$BS_WARM"',"ok":'"$ok"
  if [[ -n $error ]]; then
    bs_json e "$error"
    row+=',"error":'"$e"
  fi
  row+=',"start":"'"$start"'","end":"'"$end"'","bytes":'"$bytes"',"ops":'"$ops"',"seconds":'"$seconds"
  row+=',"throughput":'"$tp"',"iops":'"$iops"
  if [[ -n $BS_LATENCY ]]; then row+=',"latency":'"$BS_LATENCY"; fi
  if [[ -n $BS_JOBS ]]; then row+=',"jobs":'"$BS_JOBS"; fi
  printf '%s}\\n' "$row"
  BS_ROW=$ok
}

# ---------- one repetition runs in a child process, in its own process group ----------

bs_child() {
  set -E
  trap 'bs_child_err "$?" "$BASH_COMMAND"' ERR
  trap 'bs_child_exit' EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT
  "\${BS_TARGET}_enter"
  "$BS_CASE_FN"
  case $BS_ROW in
    true) exit 0 ;;
    false) exit 3 ;;
    *) bs_fail "the case printed no result row" ;;
  esac
}

bs_child_err() {
  if [[ ! -s $BS_REPDIR/error ]]; then
    printf 'command failed with exit status %s: %s\\n' "$1" "$2" >"$BS_REPDIR/error"
  fi
}

bs_child_exit() {
  local status=$? stat pgrp jobs
  set +e
  trap - ERR
  trap '' TERM INT
  # Stop what the repetition still runs (workers, their tools) before cleaning up after it. Only when this
  # process leads its own group, which bs_rep arranges (set -m); otherwise only its direct jobs.
  read -r stat <"/proc/$BASHPID/stat"
  stat=\${stat##*) }
  read -r _ _ pgrp _ <<<"$stat"
  if [[ $pgrp == "$BASHPID" ]]; then
    kill -TERM 0 2>/dev/null
  else
    mapfile -t jobs < <(jobs -p)
    if ((\${#jobs[@]} > 0)); then kill -TERM "\${jobs[@]}" 2>/dev/null; fi
  fi
  wait 2>/dev/null
  if [[ -n $BS_REP_CLEANUP ]]; then "$BS_REP_CLEANUP"; fi
  exit "$status"
}

# bs_rep REP WARMUP: runs one repetition of the current case; prints a failure row if the child could not.
bs_rep() {
  BS_REP=$1 BS_WARM=$2
  local status=0 t0 t1 error=''
  # shellcheck disable=SC2034 # names the repetition in S3 keys and fio log directories
  if [[ $BS_WARM == true ]]; then BS_REPNAME=w$BS_REP; else BS_REPNAME=r$BS_REP; fi
  BS_REPDIR=$BS_STATE/rep
  rm -rf -- "$BS_REPDIR"
  mkdir -- "$BS_REPDIR"
  if [[ $BS_WARM == true ]]; then
    bs_log "[$((BS_CASE_INDEX + 1))/$BS_CASES] $BS_CASE: warm-up $BS_REP"
  else
    bs_log "[$((BS_CASE_INDEX + 1))/$BS_CASES] $BS_CASE: repetition $BS_REP"
  fi
  bs_now t0
  set -m
  bs_child </dev/null &
  BS_CHILD=$!
  set +m
  wait "$BS_CHILD" || status=$?
  BS_CHILD=
  case $status in
    0) ;;
    3) BS_FAILURES=$((BS_FAILURES + 1)) ;;
    *)
      BS_FAILURES=$((BS_FAILURES + 1))
      bs_now t1
      bs_first_error error "$BS_REPDIR/error"
      BS_LATENCY='' BS_JOBS=''
      bs_emit false "\${error:-the repetition failed with exit status $status}" "$t0" "$t1" 0 0
      ;;
  esac
}

# bs_run_case INDEX ID TARGET META REPEAT WARMUP
bs_run_case() {
  BS_CASE_INDEX=$1 BS_CASE=$2 BS_TARGET=$3 BS_META=$4
  BS_CASE_FN=bs_case_$1
  local repeat=$5 warmup=$6 rep
  BS_CASESTATE=$BS_STATE/case
  rm -rf -- "$BS_CASESTATE"
  mkdir -- "$BS_CASESTATE"
  for ((rep = 1; rep <= warmup; rep++)); do bs_rep "$rep" true; done
  for ((rep = 1; rep <= repeat; rep++)); do bs_rep "$rep" false; done
  "\${BS_TARGET}_leave"
}

# ---------- targets ----------

# bs_fs_setup NAME ROOT keep|remove: files go into a fresh subdirectory of ROOT (ROOT itself a new temp
# dir when empty); only what the script created is removed. Cases see it through a link with a plain path.
bs_fs_setup() {
  local name=$1 root=$2 keep=$3 work
  if [[ -z $root ]]; then
    root=$(mktemp -d "$BS_TMPBASE/benchspec-target.XXXXXX")
    if [[ $keep != keep ]]; then BS_CLEAN+=("$root"); fi
  fi
  if [[ $root != /* ]]; then root=$PWD/$root; fi
  if [[ ! -d $root ]]; then bs_die "target $name: $root is not a directory"; fi
  work=$(mktemp -d -- "$root/benchspec.XXXXXX") || bs_die "target $name: cannot create a directory in $root"
  if [[ $keep == keep ]]; then
    bs_log "target $name: keeping files in $work"
  else
    BS_CLEAN+=("$work")
  fi
  ln -s -- "$work" "$BS_STATE/targets/$name"
  BS_TDIR[$name]=$BS_STATE/targets/$name
}

bs_fs_enter() {
  BS_DIR=\${BS_TDIR[$1]}/$BS_CASE
  mkdir -p -- "$BS_DIR"
}

bs_fs_leave() {
  if [[ $2 != keep ]]; then rm -rf -- "\${BS_TDIR[$1]:?}/$BS_CASE"; fi
}

# bs_block_setup NAME DEVICE: refuses anything but an unused block device: not mounted, not swap, no
# partition or holder (LVM, md, dm) of it mounted or swap.
bs_block_setup() {
  local name=$1 device=$2 dev
  if [[ -z $device ]]; then bs_die "target $name: no block device given"; fi
  dev=$(readlink -f -- "$device") || bs_die "target $name: cannot resolve $device"
  if [[ ! -b $dev ]]; then bs_die "target $name: $device is not a block device"; fi
  bs_block_unused "$name" "$dev"
  # shellcheck disable=SC2034 # read by the target's enter function
  BS_TDEV[$name]=$dev
}

bs_block_unused() {
  local name=$1 dev=$2 base sys p h related=() numbers=() line src
  base=\${dev##*/}
  sys=/sys/class/block/$base
  related=("$dev")
  if [[ -d $sys ]]; then
    for p in "$sys/$base"*; do
      if [[ -e $p/partition ]]; then related+=("/dev/\${p##*/}"); fi
    done
    for h in "$sys"/holders/* "$sys/$base"*/holders/*; do
      if [[ -e $h ]]; then related+=("/dev/\${h##*/}"); fi
      for p in "$h"/holders/*; do
        if [[ -e $p ]]; then related+=("/dev/\${p##*/}"); fi
      done
    done
  fi
  for p in "\${related[@]}"; do
    if [[ -r /sys/class/block/\${p##*/}/dev ]]; then numbers+=("$(cat "/sys/class/block/\${p##*/}/dev")"); fi
  done
  while read -r src _; do
    src=$(readlink -f -- "$src" 2>/dev/null) || continue
    for p in "\${related[@]}"; do
      if [[ $src == "$p" ]]; then bs_die "target $name: refusing $dev: $p is mounted"; fi
    done
  done </proc/mounts
  if [[ -r /proc/self/mountinfo ]]; then
    while read -r _ _ line _; do
      for p in "\${numbers[@]}"; do
        if [[ $line == "$p" ]]; then bs_die "target $name: refusing $dev: device $p is mounted"; fi
      done
    done </proc/self/mountinfo
  fi
  if [[ -r /proc/swaps ]]; then
    while read -r src _; do
      [[ $src == /* ]] || continue
      src=$(readlink -f -- "$src" 2>/dev/null) || continue
      for p in "\${related[@]}"; do
        if [[ $src == "$p" ]]; then bs_die "target $name: refusing $dev: $p is used as swap"; fi
      done
    done </proc/swaps
  fi
}

# ---------- lifecycle ----------

bs_init() {
  BS_TMPBASE=\${BENCHSPEC_TMPDIR:-\${TMPDIR:-/tmp}}
  BS_RUN_ID=\${BENCHSPEC_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$$}
  if [[ ! $BS_RUN_ID =~ ^[A-Za-z0-9._-]+$ ]]; then bs_die "BENCHSPEC_RUN_ID may only hold letters, digits, '.', '_' and '-'"; fi
  # shellcheck disable=SC2034 # where the fio jobfiles are
  BS_HERE=$(cd -- "$(dirname -- "$0")" && pwd -P)
  trap 'bs_cleanup' EXIT
  trap 'bs_interrupt 130' INT
  trap 'bs_interrupt 143' TERM
  BS_STATE=$(mktemp -d "$BS_TMPBASE/benchspec.XXXXXX")
  mkdir -- "$BS_STATE/targets"
  BS_REPDIR=$BS_STATE/rep
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
  for f in "\${BS_RELEASE[@]}"; do "$f"; done
  for ((i = \${#BS_CLEAN[@]} - 1; i >= 0; i--)); do rm -rf -- "\${BS_CLEAN[i]}"; done
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
`;
