import { Command } from "commander";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { countRepetitions, type Case, type Plan } from "../plan/types.js";
import { formatParam } from "../spec/params.js";
import type { ParamName } from "../spec/schema.js";
import { collect, EXIT, printDiagnostics, type Io } from "./context.js";
import { formatTable } from "./table.js";

/** Shown in the table only when the user chose them; the rest are in --json. */
const HIDDEN: ReadonlySet<ParamName> = new Set(["target", "engine", "op", "repeat", "warmup"]);

export function makePlanCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("plan")
    .description("expand a spec into its cases and show them")
    .argument("<spec>", "spec file")
    .option("--set <key=value>", "override a var or parameter (repeatable)", collect, [])
    .option("--json", "print the whole plan as JSON")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec plan specs/quickstart.yaml
  $ benchspec plan specs/cloud-disk-pts.yaml --json | jq '.cases | length'
  $ benchspec plan spec.yaml --set repeat=1 --set 'bs=[4KiB]'`,
    )
    .action(async (file: string, options: { set: string[]; json?: boolean }) => {
      const { loadSpec } = await import("../plan/load.js");
      const result = await loadSpec(file, { sets: options.set });
      printDiagnostics(io, result.diagnostics);
      if (hasErrors(result.diagnostics) || !result.plan) return setExit(EXIT.invalid);
      io.stdout.write(
        options.json ? `${JSON.stringify(result.plan, null, 2)}\n` : `${renderPlan(result.plan)}\n`,
      );
      setExit(EXIT.ok);
    });
}

export function renderPlan(plan: Plan): string {
  const rows = plan.cases.map((c) => [
    String(c.index + 1),
    c.id,
    c.engine,
    c.op,
    describeParams(c),
    c.params.warmup > 0 ? `${c.params.repeat}+${c.params.warmup}w` : String(c.params.repeat),
  ]);
  const table = formatTable(["#", "case", "engine", "op", "parameters", "reps"], rows);
  const summary = `${plan.name}: ${plan.cases.length} cases, ${countRepetitions(plan)} repetitions`;
  return `${table}\n\n${summary}`;
}

function describeParams(c: Case): string {
  return (Object.keys(c.params) as ParamName[])
    .filter((key) => !HIDDEN.has(key) && c.sources[key] !== "builtin")
    .map((key) => `${key}=${formatParam(key, c.params[key]!)}`)
    .join(" ");
}
