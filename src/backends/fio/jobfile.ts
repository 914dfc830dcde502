/**
 * fio jobfiles. One jobfile per case (run once per repetition) and, where the case preconditions, one
 * precondition jobfile (run once before the first repetition). The target's place is not written into the
 * file: fio expands ${BENCHSPEC_DIR} / ${BENCHSPEC_DEVICE} from the environment, which the runner (or the
 * compiled shell script) sets after its safety checks. Sizes are written in bytes: fio reads "1MiB" as
 * 10^6 bytes (kb_base), so a unit suffix would silently change the workload.
 */
import type { Case } from "../../plan/types.js";
import { WRITING_OPS, type Op } from "../../spec/engines.js";
import { IniWriter } from "../writer.js";
import type { Artifact, CompileContext } from "../types.js";

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
};

export const jobfilePath = (c: Case) => `fio/${c.id}.fio`;
export const preconditionPath = (c: Case) => `fio/${c.id}.precondition.fio`;

export function fioArtifacts(c: Case, ctx: CompileContext): Artifact[] {
  const artifacts = [{ path: jobfilePath(c), content: measuredJobfile(c, ctx) }];
  if (c.params.precondition)
    artifacts.push({ path: preconditionPath(c), content: preconditionJobfile(c, ctx) });
  return artifacts;
}

function measuredJobfile(c: Case, ctx: CompileContext): string {
  const p = c.params;
  const w = new IniWriter(ctx, "fio jobfile");
  w.comment(`case ${c.id}: one repetition (workload ${c.workload}, target ${c.target})`);
  w.comment(`repetitions: ${c.params.repeat} measured, ${c.params.warmup} warm-up`);
  w.comment(
    `run: ${targetVariable(c)}=<path> fio ${FIO_OUTPUT_ARGS.join(" ")} ${jobfilePath(c).split("/").pop()}`,
  );
  w.blank();
  writeGlobal(w, c);
  w.blank().section(c.id);
  w.option("rw", RW[c.op]!);
  if (p.read !== undefined) w.option("rwmixread", p.read);
  w.option("bs", p.bs!).option("iodepth", p.iodepth!).option("numjobs", p.jobs!);
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
  return w.toString();
}

function preconditionJobfile(c: Case, ctx: CompileContext): string {
  const { precondition, jobs } = c.params;
  const w = new IniWriter(ctx, "fio precondition jobfile");
  w.comment(
    `case ${c.id}: ${precondition!.passes} ${precondition!.write} write pass(es) before the first repetition`,
  );
  w.blank();
  writeGlobal(w, { ...c, params: { ...c.params, direct: true } });
  for (let pass = 1; pass <= precondition!.passes; pass++) {
    w.blank().section(`precondition-${pass}`);
    w.option("rw", precondition!.write === "seq" ? "write" : "randwrite");
    w.option("bs", precondition!.bs ?? 128 * 1024)
      .option("iodepth", 32)
      .option("numjobs", jobs!);
    if (precondition!.write === "random") w.option("norandommap").option("randrepeat", false);
    w.option("stonewall");
  }
  return w.toString();
}

/** What every job of a case shares: engine, target, data pattern, percentiles. */
function writeGlobal(w: IniWriter, c: Case) {
  const p = c.params;
  w.section("global");
  w.option("ioengine", p.ioengine!).option("direct", p.direct ?? false);
  if (c.targetKind === "block") {
    w.optionFromEnv("filename", targetVariable(c));
    // A block case covers the whole device unless the spec bounded it.
    if (c.sources.size !== "builtin") w.option("size", p.size!);
  } else {
    w.optionFromEnv("directory", targetVariable(c));
    w.option("filename_format", "benchspec.$jobnum.$filenum");
    w.option("size", p.size!);
  }
  // "random" is fio's default: random buffers, scrambled per I/O (incompressible, not deduplicable).
  if (p.data === "zero") w.option("zero_buffers");
  else if (typeof p.data === "object") {
    w.option("refill_buffers").option("buffer_compress_percentage", Math.round(p.data.compressible));
  }
  w.option("percentile_list", PERCENTILES.join(":"));
}

export const targetVariable = (c: Case) => (c.targetKind === "block" ? "BENCHSPEC_DEVICE" : "BENCHSPEC_DIR");

/** fio opens a device read-only for read jobs; `--readonly` on the command line makes it refuse any write too. */
export const fioSafetyArgs = (c: Case): string[] =>
  c.targetKind === "block" && !WRITING_OPS.has(c.op) && !c.params.precondition ? ["--readonly"] : [];

const milliseconds = (seconds: number) => `${Math.round(seconds * 1000)}ms`;
