import { Command } from "commander";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { BenchspecError, hasCode } from "../platform/errors.js";
import {
  collect,
  collectNames,
  ONLY_OPTION,
  EXIT,
  nonEmptyPath,
  printDiagnostics,
  VERSION,
  type Io,
} from "./context.js";

export function makeCompileCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("compile")
    .description("compile a spec into fio jobfiles, a bash script and S3/IPFS call sequences")
    .argument("<spec>", "spec file")
    .option(
      "-t, --target <formats>",
      "artifact formats: fio, shell, sdk, slurm (sbatch scripts for Slurm host groups), fio-client (fio client scripts for groups of fio servers), a comma-separated list, or all",
      "all",
    )
    .option("-o, --out <dir>", "output directory", "compiled")
    .option("--set <key=value>", "override a var or parameter (repeatable)", collect, [])
    .option(
      "--hosts <[group=]host,…>",
      "run workloads from these ssh hosts at once (repeatable)",
      collect,
      [],
    )
    .option(...ONLY_OPTION, collectNames, [])
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec compile specs/cloud-disk-pts.yaml --target fio --out build/pts
  $ benchspec compile specs/shared-storage-dd.yaml --target shell --out build/dd --set count=4
  $ BENCHSPEC_TARGET_nfs=/mnt/nfs build/dd/benchspec.sh > results.ndjson
  $ benchspec compile spec.yaml --target slurm --out build/x && cd build/x && sbatch slurm/cluster.sbatch

The output is deterministic (same spec, same bytes); plan.json maps every case to its artifacts.`,
    )
    .action(
      async (
        file: string,
        options: { target: string; out: string; set: string[]; hosts: string[]; only: string[] },
      ) => {
        const [{ loadSpec }, { compilePlan, parseFormats }, { writeArtifacts }] = await Promise.all([
          import("../engines/language.js"),
          import("../compile/compile.js"),
          import("../compile/output.js"),
        ]);
        const result = await loadSpec(file, { sets: options.set, hosts: options.hosts, only: options.only });
        printDiagnostics(io, result.diagnostics);
        if (hasErrors(result.diagnostics) || !result.plan) return setExit(EXIT.invalid);
        try {
          const { artifacts, leftOut, compiled, hostGroups } = await compilePlan(
            result.plan,
            parseFormats(options.target),
            VERSION,
          );
          await writeArtifacts(nonEmptyPath("--out", options.out), artifacts);
          for (const line of leftOut) io.stderr.write(`left out: ${line}\n`);
          for (const line of hostGroups) io.stderr.write(`${line}\n`);
          const cases = result.plan.cases.length;
          io.stdout.write(
            `wrote ${artifacts.length} files to ${options.out} (${compiled === cases ? cases : `${compiled} of ${cases}`} cases)\n`,
          );
          setExit(EXIT.ok);
        } catch (error) {
          // Said against the option that named the directory.
          if (hasCode(error, "unwritable-output"))
            throw new BenchspecError(error.code, `--out: ${error.message}`, { cause: error });
          throw error;
        }
      },
    );
}
