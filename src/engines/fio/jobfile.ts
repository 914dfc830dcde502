/**
 * fio jobfiles: one per workload (`fio/<workload>.fio`), one section per case in plan order, each behind a
 * `stonewall`. A workload that preconditions has its write passes as sections just before its first case on
 * each target (`<workload>.<target>.precondition-<n>`), so `fio <workload>.fio` runs the whole workload in
 * order by hand, while the runner and the shell script pick sections with `--section`: the passes once per
 * target, then each case once per repetition. Every section carries all of its options (cases differ in size, target kind, data…); [global]
 * holds only what every job shares. The target's place is not written into the file: fio expands
 * ${BENCHSPEC_DIR} / ${BENCHSPEC_DEVICE} from the environment, which the runner (or the compiled shell
 * script) sets after its safety checks. Sizes are written in bytes: fio reads "1MiB" as 10^6 bytes
 * (kb_base), so a unit suffix would silently change the workload.
 */
import { classShares, oneSize, type SizeParam } from "../../rows/sizes.js";
import { onTarget, targetsOf, type Case } from "../../plan/types.js";
import { WRITING_OPS } from "../../spec/engines.js";
import { formatParam } from "../../spec/params.js";
import type { Op } from "../../spec/words.js";
import { IniWriter } from "../../emit/writer.js";
import type { CaseArtifacts, CompileContext } from "../../emit/types.js";

export const FIO_OUTPUT_ARGS = ["--output-format=json+"] as const;
export const PERCENTILES = [50, 90, 99, 99.9] as const;

const RW: Record<Op, string | undefined> = {
  read: "read",
  write: "write",
  randread: "randread",
  randwrite: "randwrite",
  readwrite: "rw",
  randrw: "randrw",
  put: undefined,
  get: undefined,
  delete: undefined,
  stat: undefined,
  list: undefined,
  mixed: undefined,
};

export const jobfilePath = (c: Case) => `fio/${c.workload}.fio`;

/**
 * The sections that precondition a case's workload on its target, in the order they run: written once per
 * workload and target, before the first of its cases there (a case id never ends in "precondition-N").
 */
export function preconditionSections(c: Case): string[] {
  const passes = c.params.precondition?.passes ?? 0;
  return Array.from({ length: passes }, (_, pass) => `${preconditionPrefix(c)}-${pass + 1}`);
}

export const preconditionPrefix = (c: Case) => `${c.workload}.${c.target}.precondition`;

/** `--section` arguments: fio runs only the named sections of a jobfile, in the file's order. */
export const sectionArgs = (sections: readonly string[]) => sections.map((name) => `--section=${name}`);

export function fioArtifacts(cases: readonly Case[], ctx: CompileContext): CaseArtifacts {
  const byWorkload = new Map<string, Case[]>();
  for (const c of cases) {
    const group = byWorkload.get(c.workload);
    if (group) group.push(c);
    else byWorkload.set(c.workload, [c]);
  }
  const files = [...byWorkload.values()].map((group) => ({
    path: jobfilePath(group[0]!),
    content: workloadJobfile(group, ctx),
  }));
  return { files, filesOf: (c) => [jobfilePath(c)] };
}

function workloadJobfile(cases: readonly Case[], ctx: CompileContext): string {
  const first = cases[0]!;
  const file = jobfilePath(first).split("/").pop()!;
  const variables = [...new Set(cases.map(targetVariable))].map((name) => `${name}=<path>`).join(" ");
  const w = new IniWriter(ctx, "fio jobfile");
  w.comment(`workload ${first.workload}: ${cases.length} case(s), one section each, in order (stonewall)`);
  w.comment(
    `one repetition of a case: ${variables} fio ${FIO_OUTPUT_ARGS.join(" ")} --section=<case> ${file}`,
  );
  if (cases.some((c) => c.params.precondition)) {
    w.comment(
      `preconditioning (once per target, before the workload's first case on it): --section=<workload>.<target>.precondition-1 …`,
    );
  }
  w.comment(`the whole workload, each case once: ${variables} fio ${file}`);
  w.blank().section("global");
  w.option("percentile_list", PERCENTILES.join(":"));
  const preconditioned = new Set<string>();
  for (const c of cases) {
    // A case over several targets at once preconditions each of them, as a case on it alone would.
    for (const target of c.params.precondition ? targetsOf(c) : []) {
      if (preconditioned.has(target)) continue;
      preconditioned.add(target);
      writePrecondition(w, c.together ? onTarget(c, target) : c);
    }
    writeMeasured(w, c);
  }
  return w.toString();
}

/**
 * The jobfile of a case run otherwise than compiled — an autotune round at its value, a host's share of
 * the rate — which benchspec run writes for itself: the case's section, with the compiled global options.
 */
export function ownJobfile(c: Case, why: string): string {
  const w = new IniWriter(undefined, "fio jobfile");
  w.comment(`case ${c.id}: ${why}`);
  w.section("global").option("percentile_list", PERCENTILES.join(":"));
  writeMeasured(w, c);
  return w.toString();
}

/** One host's share of a case's rate on a group of `count` hosts (each runs its jobs at rate ÷ count). */
export function rateShare(c: Case, count: number): Case {
  const rate = c.params.rate!;
  const part =
    "opsPerSecond" in rate
      ? { opsPerSecond: rate.opsPerSecond / count }
      : { bytesPerSecond: rate.bytesPerSecond / count };
  return { ...c, params: { ...c.params, rate: part } };
}

function writeMeasured(w: IniWriter, c: Case): void {
  const p = c.params;
  w.blank();
  w.comment(
    `case ${c.id} (target ${c.target}): ${p.repeat} measured, ${p.warmup} warm-up repetition(s) of this section`,
  );
  if (c.together)
    w.comment(
      `on ${c.together.join(", ")} at once: one fio per target, each with that target's ${targetVariable(c)}, started together`,
    );
  w.section(c.id);
  writeTarget(w, c, p.direct ?? false);
  w.option("rw", RW[c.op]!);
  if (p.read !== undefined) w.option("rwmixread", p.read);
  writeBlockSize(w, p.bs!);
  w.option("iodepth", p.iodepth!).option("numjobs", p.jobs!);
  if (p.rate) writeRate(w, c, p.rate);
  if (p.jobs! > 1) w.option("group_reporting");
  // Each repetition gets its own random offsets, not a replay of the previous one.
  if (c.op.startsWith("rand")) w.option("randrepeat", false);
  if (p.duration !== undefined) w.option("time_based").option("runtime", milliseconds(p.duration));
  if (p.ramp !== undefined && p.ramp > 0) w.option("ramp_time", milliseconds(p.ramp));
  if (p.steady) {
    const metric = p.steady.metric === "iops" ? "iops" : "bw";
    const criterion =
      p.steady.slope !== undefined ? `${metric}_slope:${p.steady.slope}%` : `${metric}:${p.steady.range}%`;
    w.option("ss", criterion).option("ss_dur", milliseconds(p.steady.window));
    if (p.steady.ramp !== undefined) w.option("ss_ramp", milliseconds(p.steady.ramp));
  }
  if (p.sample !== undefined) {
    w.option("log_avg_msec", Math.max(1, Math.round(p.sample * 1000)));
    w.option("write_bw_log", c.id).option("write_iops_log", c.id);
  }
  w.option("stonewall");
}

/**
 * An open loop through fio's own rate limit: the case's rate split evenly over its jobs (and the targets of a
 * case over several at once, each one fio), and over reads and writes by `read` for a mixed op — fio's
 * `rate_iops` and `rate` limit each job and direction. Whole I/Os per second: a remainder is said.
 */
function writeRate(w: IniWriter, c: Case, rate: NonNullable<Case["params"]["rate"]>): void {
  const p = c.params;
  const share = p.jobs! * (c.together?.length ?? 1);
  const directions = p.read !== undefined ? [p.read / 100, 1 - p.read / 100] : [1];
  const [option, total] =
    "opsPerSecond" in rate ? ["rate_iops", rate.opsPerSecond] : ["rate", rate.bytesPerSecond];
  const perJob = directions.map((part) => Math.max(1, Math.round((total * part) / share)));
  const given = perJob.reduce((sum, x) => sum + x, 0) * share;
  w.comment(
    `rate ${formatParam("rate", rate)}: ${perJob.join(",")} per job${directions.length > 1 ? " (reads,writes)" : ""} × ${share} job(s)${given !== total ? ` = ${given}${option === "rate" ? "B" : ""}/s, fio's whole numbers` : ""}`,
  );
  w.option(option, perJob.join(","));
  if (p.arrivals === "poisson") w.option("rate_process", "poisson");
}

function writePrecondition(w: IniWriter, c: Case): void {
  const { precondition, jobs } = c.params;
  const sections = preconditionSections(c);
  for (const [index, name] of sections.entries()) {
    w.blank();
    w.comment(
      `target ${c.target}: ${precondition!.write} write pass ${index + 1} of ${sections.length}, once before the workload's first case on it`,
    );
    w.section(name);
    writeTarget(w, c, true, true);
    w.option("rw", precondition!.write === "seq" ? "write" : "randwrite");
    // One job on a device: each job would write all of it, and a pass is one full write.
    w.option("bs", precondition!.bs ?? 128 * 1024)
      .option("iodepth", 32)
      .option("numjobs", c.targetKind === "block" ? 1 : jobs!);
    if (precondition!.write === "random") w.option("norandommap").option("randrepeat", false);
    w.option("stonewall");
  }
}

/**
 * The block size, or fio's own draw of it per I/O: weighted buckets as `bssplit` (whole percentages, by
 * largest remainders), a lognormal distribution as the `bssplit` of its power-of-two classes, a uniform one
 * as `bsrange` (fio draws multiples of its lower end). fio draws with its own generator: the shares are the
 * spec's, the sequence of sizes is fio's.
 */
function writeBlockSize(w: IniWriter, bs: SizeParam) {
  if (typeof bs === "number") w.option("bs", bs);
  else if ("uniform" in bs) w.option("bsrange", `${bs.uniform.min}-${bs.uniform.max}`);
  else {
    const shares = classShares(bs);
    const percents = wholePercents(shares.map((c) => c.share));
    w.option(
      "bssplit",
      shares.flatMap((c, i) => (percents[i]! > 0 ? [`${c.size}/${percents[i]}`] : [])).join(":"),
    );
  }
}

/** Shares (summing to 1) as whole percentages summing to 100: floors, then the largest remainders. */
export function wholePercents(shares: readonly number[]): number[] {
  const exact = shares.map((share) => share * 100);
  const whole = exact.map(Math.floor);
  const order = exact.map((_, i) => i).sort((a, b) => exact[b]! - whole[b]! - (exact[a]! - whole[a]!));
  for (let left = 100 - whole.reduce((a, b) => a + b, 0), r = 0; left > 0; left--, r++)
    whole[order[r % order.length]!]! += 1;
  return whole;
}

/**
 * What every job of a case shares: engine, target, data pattern. `whole`: preconditioning, which covers all
 * of a block device whatever size the case reads or writes.
 */
function writeTarget(w: IniWriter, c: Case, direct: boolean, whole = false) {
  const p = c.params;
  w.option("ioengine", p.ioengine!).option("direct", direct);
  if (c.targetKind === "block") {
    w.optionFromEnv("filename", targetVariable(c));
    // A block case covers the whole device unless the spec bounded it.
    if (c.sources.size !== "builtin" && !whole) w.option("size", oneSize(p.size!));
  } else {
    w.optionFromEnv("directory", targetVariable(c));
    w.option("filename_format", "benchspec.$jobnum.$filenum");
    w.option("size", oneSize(p.size!));
  }
  // "random" is fio's default: random buffers, scrambled per I/O (incompressible, not deduplicable).
  if (p.data === "zero") w.option("zero_buffers");
  else if (typeof p.data === "object") {
    w.option("refill_buffers").option("buffer_compress_percentage", Math.round(p.data.compressible));
  }
}

export const targetVariable = (c: Case) => (c.targetKind === "block" ? "BENCHSPEC_DEVICE" : "BENCHSPEC_DIR");

/** fio opens a device read-only for read jobs; `--readonly` on the command line makes it refuse any write too. */
export const fioSafetyArgs = (c: Case): string[] =>
  c.targetKind === "block" && !WRITING_OPS.has(c.op) ? ["--readonly"] : [];

const milliseconds = (seconds: number) => `${Math.round(seconds * 1000)}ms`;
