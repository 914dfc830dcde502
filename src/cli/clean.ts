import { printable } from "../platform/printable.js";
import { Command } from "commander";
import { EXIT, nonEmptyPath, type Io } from "./context.js";

export function makeCleanCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("clean")
    .description("remove what a killed run left outside its run directory")
    .argument("<run-dir>", "the run directory")
    .addHelpText(
      "after",
      `
Removes exactly what the run recorded as it created it (leftovers.ndjson): its owned directories on fs
targets, the data of the servers it launched, its workers' scratch directories on client hosts, and the keys
under its own prefixes in external stores (reached through the spec's \${env:…} references, so set them as
for the run). Nothing else is touched; running it again does nothing. A run that is still going on holds
the run directory's lock: clean refuses it.

Examples:
  $ benchspec clean runs/2026-11-22T07-58-01-quickstart

Exit codes: 0 nothing left, 1 something could not be removed (named on stderr), 2 not a run directory.`,
    )
    .action(async (dir: string) => {
      nonEmptyPath("run directory", dir);
      const [{ cleanRunDir, describeLeftover }, { lockRunDir, readRunState }] = await Promise.all([
        import("../run/clean.js"),
        import("../results/run-dir.js"),
      ]);
      await readRunState(dir);
      // A run or resume in progress holds the lock: its directories are in use, not left over.
      const release = lockRunDir(dir, (message) => io.stderr.write(`benchspec: ${message}\n`));
      const { removed, remaining } = await cleanRunDir(dir, io.env).finally(release);
      // What leftovers.ndjson and the hosts say is shown, never obeyed by the terminal.
      for (const leftover of removed) io.stdout.write(`removed ${printable(describeLeftover(leftover))}\n`);
      for (const { leftover, reason } of remaining)
        io.stderr.write(
          `benchspec: could not remove ${printable(describeLeftover(leftover))}: ${printable(reason, { lines: true })}\n`,
        );
      setExit(remaining.length === 0 ? EXIT.ok : EXIT.failure);
    });
}
