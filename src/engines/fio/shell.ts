/**
 * fio in the shell script: runs the case's section of its workload's jobfile (fio/<workload>.fio beside the
 * script), its workload's precondition sections once per target (a target step), with BENCHSPEC_DIR / BENCHSPEC_DEVICE set (":" escaped as "\:"
 * for fio), and reads fio's terse output (version 3, no jq needed) for the job named after the case id.
 *
 * Terse v3 fields (1-based, ";"-separated; fio's HOWTO, "Terse output"): 3 jobname, 5 error; read: 6 KiB,
 * 9 runtime ms, 16 clat mean µs; write: 47 KiB, 50 runtime ms, 57 clat mean µs. There is no trim section in
 * v3. fio writes its json+ after the terse line (--output-format=terse,json+): the completion-latency bins.
 *
 * Units in the row: bytes = (read + write KiB) × 1024 (exact when bs is a multiple of 1 KiB), ops =
 * bytes / bs, seconds = fio's runtime (ramp excluded), latency = completion latency in seconds: the mean
 * weighted by each direction's ops, the percentiles those of both directions' bins together, as benchspec
 * run takes them (src/engines/fio/results.ts), and the bins themselves in `latencyBins`. A case with `sample` writes its time series from
 * fio's averaged logs, as benchspec run does (fio.sh, bs_fio_series), to BENCHSPEC_TIMESERIES. A case over
 * several targets at once runs one fio per target, released together, and one row of them all
 * (bs_fio_together: the percentiles pooled from fio's json+ bins, as run pools them; with `sample`, each
 * target's series and their sum, as run merges them).
 */
import type { Case } from "../../plan/types.js";
import type { Engine } from "../types.js";
import type { SizeParam } from "../../rows/sizes.js";
import { shellLibrary } from "../../emit/shell-assets.js";
import { jobfilePath, preconditionPrefix, preconditionSections } from "./jobfile.js";

export const fioShellCase: Engine["shellCase"] = (c: Case, w) => {
  const p = c.params;
  if (p.autotune) w.comment(`autotune is not run by this script: ${p.autotune.param} as in the jobfile`);
  if (c.together) {
    if (p.sample !== undefined) w.assign("BS_FIO_SAMPLE_MS", Math.max(1, Math.round(p.sample * 1000)));
    w.line(
      ["bs_fio_together", jobfilePath(c), c.id, countingSize(p.bs!), ...c.together]
        .map((value) => w.quote(value))
        .join(" "),
    );
    return;
  }
  const sample = p.sample === undefined ? [] : [Math.max(1, Math.round(p.sample * 1000))];
  w.line(
    ["bs_fio", jobfilePath(c), c.id, countingSize(p.bs!), ...sample].map((value) => w.quote(value)).join(" "),
  );
};

/** What the script divides bytes by to count I/Os: the block size, or 0 when fio draws it (count fio's I/Os). */
const countingSize = (bs: SizeParam) => (typeof bs === "number" ? bs : 0);

/** The workload's preconditioning on the case's target: its precondition sections, in order. */
export const fioShellPrecondition: NonNullable<Engine["shellPrecondition"]> = (c: Case, w) => {
  const passes = preconditionSections(c).length;
  w.line(
    ["bs_fio_precondition", jobfilePath(c), preconditionPrefix(c), passes]
      .map((value) => w.quote(value))
      .join(" "),
  );
};

/** The bash functions every fio case calls. */
export const fioShellLibrary = shellLibrary(new URL("./fio.sh", import.meta.url));
