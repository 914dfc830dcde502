import { Command } from "commander";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { makeDirectoryAtomic } from "../platform/atomic-write.js";
import { BenchspecError } from "../platform/errors.js";
import { describeFsError } from "../platform/fs-errors.js";
import { checkOutputApart, EXIT, nonEmptyPath, VERSION, type Io } from "./context.js";

export function makeMergeCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("merge")
    .description("merge runs of one spec made on different hosts into one run of several hosts")
    .argument(
      "<run-dirs...>",
      "run directories, or the compiled script's copies' outputs, one per host; DIR=name names the host (default: its hostname, or the host its rows name)",
    )
    .requiredOption("-o, --out <dir>", "the run directory to write (new, or empty)")
    .addHelpText(
      "after",
      `
Each input is a normal run of the same spec (and the same --set) on one host, collected by hand or by
another scheduler. Per case and repetition their rows become one row of several hosts, as \`benchspec run\`
writes for a case run on several hosts at once: bytes and operations summed over the common window,
latency percentiles from the merged histograms, each host's own figures kept. The hosts' clocks are
assumed synchronised (NTP); repetitions whose hosts' starts lie further apart than the repetition are
named, and so are cases some host lacks (merged from the hosts that have them).

An input may instead be what a copy of the compiled script printed (benchspec.sh as one of several copies,
BENCHSPEC_HOST_COUNT): its results file, or a directory holding it as results.ndjson with the
timeseries.ndjson it kept, compile's plan.json beside it or one directory up. Its rows name its host.
Or the output directory of a compiled fio-client/<group>.sh (compile --target fio-client): every host of
its group at once, each server's share of fio's json+ read as benchspec run reads it.

Examples:
  $ benchspec merge runs/ws1-quickstart runs/ws2-quickstart -o runs/quickstart-merged
  $ benchspec merge a=node1 b=node2 -o merged     # name the hosts yourself
  $ benchspec merge out/node-0 out/node-1 out/node-2 -o out/merged   # the script's copies
  $ benchspec merge fio-out -o merged     # what fio-client/<group>.sh wrote

Exit codes: 0 merged (notes on stderr), 2 a missing directory, runs of different specs, a broken row.`,
    )
    .action(async (args: string[], options: { out: string }) => {
      const out = resolve(nonEmptyPath("-o", options.out));
      const inputs = args.map(parseInput);
      checkOutputApart(
        "-o",
        out,
        inputs.map((input) => input.dir),
      );
      const [{ mergeRuns, checkMergeOutput }, { writeRunReport }] = await Promise.all([
        import("../results/merge-runs.js"),
        import("../report/index.js"),
      ]);
      await checkMergeOutput(out);
      // Whole or not at all: a full disk or Ctrl-C leaves no half-written run directory.
      const result = await makeDirectoryAtomic(out, async (staging) => {
        const merged = await mergeRuns(inputs, staging);
        await writeRunReport(staging, VERSION, out, merged.model);
        return merged;
      }).catch((error: unknown) => {
        if (error instanceof BenchspecError || typeof (error as NodeJS.ErrnoException).code !== "string")
          throw error;
        throw new BenchspecError("unwritable-output", `cannot write ${out}: ${describeFsError(error)}`, {
          cause: error,
        });
      });
      for (const note of result.notes) io.stderr.write(`benchspec: note: ${note}\n`);
      io.stdout.write(`${out}\n`);
      setExit(EXIT.ok);
    });
}

/** DIR or DIR=name; a directory whose own name has "=" in it is taken whole. */
function parseInput(arg: string): { dir: string; host?: string } {
  nonEmptyPath("run directory", arg);
  const at = arg.lastIndexOf("=");
  if (at <= 0 || existsSync(arg)) return { dir: arg };
  const host = arg.slice(at + 1);
  return host === "" ? { dir: arg.slice(0, at) } : { dir: arg.slice(0, at), host };
}
