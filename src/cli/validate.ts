import { Command } from "commander";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { countRepetitions } from "../plan/types.js";
import { collect, collectNames, ONLY_OPTION, EXIT, printDiagnostics, type Io } from "./context.js";

export function makeValidateCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("validate")
    .description("check specs and report every problem at once")
    .argument("<spec...>", "spec files")
    .option("--set <key=value>", "override a var or parameter (repeatable)", collect, [])
    .option(
      "--hosts <[group=]host,…>",
      "run workloads from these ssh hosts at once (repeatable)",
      collect,
      [],
    )
    .option(...ONLY_OPTION, collectNames, [])
    .option("-q, --quiet", "print nothing when the specs are valid")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec validate specs/*.yaml
  $ benchspec validate spec.yaml --set size=4KiB

Exit codes: 0 valid, 2 invalid.`,
    )
    .action(
      async (
        files: string[],
        options: { set: string[]; hosts: string[]; only: string[]; quiet?: boolean },
      ) => {
        const { loadSpec } = await import("../engines/language.js");
        let invalid = false;
        for (const file of files) {
          const result = await loadSpec(file, {
            sets: options.set,
            hosts: options.hosts,
            only: options.only,
          });
          printDiagnostics(io, result.diagnostics);
          if (hasErrors(result.diagnostics) || !result.plan) {
            invalid = true;
            continue;
          }
          if (!options.quiet) {
            const { cases } = result.plan;
            io.stdout.write(
              `${file}: valid — ${cases.length} cases, ${countRepetitions(result.plan)} repetitions\n`,
            );
          }
        }
        setExit(invalid ? EXIT.invalid : EXIT.ok);
      },
    );
}
