/**
 * The `fio-client` compile target: per host group of `transport: fio` the plan's cases run on, the files
 * that run them as `benchspec run` does, with fio's own client and no benchspec on any host:
 *
 *   fio-client/<group>.sh                    runs each case on every host at once: one `fio --client=h1
 *                                            <h1's jobfile> --client=h2 <h2's jobfile> …` per repetition
 *                                            (fio's client is the start barrier), json+ to OUT/<case>/
 *   fio-client/<group>/<case>/hK.run.fio     host K's jobfile: [global] and the case's section, its files
 *                                            named benchspec-hK.… (hosts share the directory, not files)
 *   fio-client/<group>/<case>/hK.precondition.fio, hK.cleanup.fio   the workload's preconditioning passes;
 *                                            the job that removes what the case made (create_only, unlink)
 *   fio-client/<group>/hosts.json            the hosts as the spec names them, for `benchspec merge OUT`
 *
 * The jobfiles are cut from the workload's jobfile (fio/<workload>.fio), as benchspec run cuts them.
 */
import type { Artifact, CompileContext } from "../emit/types.js";
import { ShellScriptWriter, shQuote } from "../emit/writer.js";
import { shellAsset } from "../emit/shell-assets.js";
import { assignWord, targetEnvVar } from "../emit/shell-words.js";
import { cleanupJobfile, clientArg, fioServer, hostJobfile } from "../engines/fio/clients.js";
import {
  jobfilePath,
  ownJobfile,
  preconditionSections,
  rateShare,
  targetVariable,
} from "../engines/fio/jobfile.js";
import type { Case, Plan } from "../plan/types.js";
import { plainDirectory } from "../spec/target-kinds.js";
import { BenchspecError } from "../platform/errors.js";
import type { ScriptCopies } from "../spec/transports.js";
import type { BatchCompiler } from "./batch.js";
import { RUN_FILES } from "../results/run-dir.js";
import { FIO_CLIENT_HOSTS } from "../results/fio-client-input.js";

export const fioClientBatch: BatchCompiler = {
  path: (group) => `fio-client/${group}.sh`,
  run: (group) =>
    `fio-client/${group}.sh OUT (fio's client drives every host's fio --server), then benchspec merge OUT`,
  runs: "fio",
  files: fioClientFiles,
};

/** A host's own prefix for the files its jobs make in the directory all hosts share. */
const hostPrefix = (k: number) => `benchspec-h${k + 1}`;

/** `copies.batch.args`: the group's fio servers as the spec names them (spec/transports.ts). */
function fioClientFiles(
  plan: Plan,
  name: string,
  copies: Required<ScriptCopies>,
  ctx: CompileContext,
  compiled: ReadonlyMap<string, Artifact>,
): Artifact[] {
  const hosts = copies.batch.args;
  const servers = hosts.map(fioServer);
  const cases = plan.cases.filter((c) => c.params.hosts === name);
  const files: Artifact[] = [];
  const dir = `fio-client/${name}`;
  for (const c of cases) {
    const jobfile = compiled.get(jobfilePath(c))?.content;
    if (jobfile === undefined)
      throw new BenchspecError("internal", `case ${c.id}: no ${jobfilePath(c)} was compiled`);
    const passes = preconditionSections(c);
    // A rate is the group's, as benchspec run splits it: each server runs its share.
    const run =
      c.params.rate && servers.length > 1
        ? ownJobfile(rateShare(c, servers.length), `each of ${servers.length} servers: its share of the rate`)
        : jobfile;
    servers.forEach((_, k) => {
      const at = `${dir}/${c.id}/h${k + 1}`;
      files.push({ path: `${at}.run.fio`, content: hostJobfile(run, [c.id], hostPrefix(k)) });
      if (passes.length > 0)
        files.push({ path: `${at}.precondition.fio`, content: hostJobfile(jobfile, passes, hostPrefix(k)) });
      files.push({ path: `${at}.cleanup.fio`, content: cleanupJobfile(jobfile, c.id, hostPrefix(k)) });
    });
  }
  files.push({
    path: `${dir}/hosts.json`,
    content: `${JSON.stringify({ group: name, hosts })}\n`,
  });
  files.push({
    path: fioClientBatch.path(name),
    content: runner(plan, name, servers.map(clientArg), cases, ctx),
  });
  return files;
}

function runner(plan: Plan, name: string, clients: string[], cases: readonly Case[], ctx: CompileContext) {
  const w = new ShellScriptWriter(ctx);
  w.comment(
    `The ${cases.length} case(s) of spec ${plan.name} on host group ${name}: fio's client runs each on all ${clients.length} hosts at once.`,
  );
  w.comment(`Usage: ${fioClientBatch.path(name)} OUT   (fio --server listening on every host; fio here)`);
  w.comment(
    `  then \`benchspec merge OUT -o MERGED\` makes OUT one run of several hosts, as benchspec run's.`,
  );
  w.comment(
    "  A target's directory must exist on every host: BENCHSPEC_TARGET_<name> overrides the spec's path.",
  );
  w.line("set -uo pipefail");
  w.line('BS_HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)');
  w.assign("BS_GROUP", name);
  w.assign("BS_PLAN", RUN_FILES.plan.name);
  w.assign("BS_HOSTS_FILE", FIO_CLIENT_HOSTS);
  w.line(`BS_CLIENTS=(${clients.map(shQuote).join(" ")})`);
  w.line("BS_FAILED=0");
  w.code(shellAsset(new URL("./fio-client.sh", import.meta.url)));
  w.line();
  w.block("bs_fc_cases() {", () => {
    for (const c of cases) {
      const target = plan.targets[c.target]!;
      const path = plainDirectory(target)?.path ?? "";
      assignWord(w, "local place", path, `target ${c.target}`);
      const variable = targetEnvVar(c.target);
      w.line(`place=\${${variable}:-$place}`);
      const keep = "keep" in target && target.keep === true ? 1 : 0;
      const counts = [c.params.repeat, c.params.warmup, preconditionSections(c).length > 0 ? 1 : 0, keep];
      w.line(`bs_fc_case ${w.quote(c.id)} ${targetVariable(c)} "$place" ${counts.join(" ")}`);
    }
  });
  w.line('bs_fc_main "$@"');
  return w.toString();
}
