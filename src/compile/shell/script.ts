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
import { BenchspecError } from "../../platform/errors.js";
import { ShellScriptWriter, shQuote } from "../writer.js";
import { shellAsset } from "./assets.js";

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
    throw new BenchspecError("internal", `bad environment variable name ${name}`);
  if (!/^[A-Za-z0-9 _.,-]*$/.test(what)) throw new BenchspecError("internal", `bad message ${what}`);
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
  w.code(shellAsset(new URL("./runtime-checks.sh", import.meta.url)));
  w.assign("BS_SPEC", plan.name);
  w.assign("BS_SPEC_HASH", plan.specHash);
  w.assign("BS_GENERATOR", `benchspec ${ctx.version}`);
  w.assign("BS_CASES", plan.cases.length);
  w.assign("BS_ROW_SPEC", JSON.stringify({ spec: plan.name, specHash: plan.specHash }).slice(1, -1));
  w.code(shellAsset(new URL("./runtime.sh", import.meta.url)));

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
