import { Command } from "commander";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { countRepetitions, type Case, type Plan } from "../plan/types.js";
import { formatParam } from "../spec/params.js";
import type { ParamName } from "../spec/schema.js";
import { collect, collectNames, ONLY_OPTION, EXIT, printDiagnostics, type Io } from "./context.js";
import { formatTable } from "./table.js";
import { hostNames } from "../hosts/transports.js";

/** Shown in the table only when the user chose them; the rest are in --json. */
const HIDDEN: ReadonlySet<ParamName> = new Set(["target", "hosts", "engine", "op", "repeat", "warmup"]);

export function makePlanCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("plan")
    .description("expand a spec into its cases and show them")
    .argument("<spec>", "spec file")
    .option("--set <key=value>", "override a var or parameter (repeatable)", collect, [])
    .option(
      "--hosts <[group=]host,…>",
      "run workloads from these ssh hosts at once (repeatable)",
      collect,
      [],
    )
    .option(...ONLY_OPTION, collectNames, [])
    .option("--json", "print the whole plan as JSON")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec plan specs/quickstart.yaml
  $ benchspec plan specs/cloud-disk-pts.yaml --json | jq '.cases | length'
  $ benchspec plan spec.yaml --set repeat=1 --set 'bs=[4KiB]'`,
    )
    .action(
      async (file: string, options: { set: string[]; hosts: string[]; only: string[]; json?: boolean }) => {
        const { loadSpec } = await import("../engines/language.js");
        const result = await loadSpec(file, { sets: options.set, hosts: options.hosts, only: options.only });
        printDiagnostics(io, result.diagnostics);
        if (hasErrors(result.diagnostics) || !result.plan) return setExit(EXIT.invalid);
        io.stdout.write(
          options.json ? `${JSON.stringify(result.plan, null, 2)}\n` : `${renderPlan(result.plan)}\n`,
        );
        setExit(EXIT.ok);
      },
    );
}

export function renderPlan(plan: Plan): string {
  // The hosts column appears once a case runs elsewhere than on this machine.
  const remote = plan.cases.some((c) => c.params.hosts !== undefined);
  const rows = plan.cases.map((c) => [
    String(c.index + 1),
    c.id,
    c.engine,
    c.op,
    describeParams(c),
    c.params.warmup > 0 ? `${c.params.repeat}+${c.params.warmup}w` : String(c.params.repeat),
    ...(remote ? [describeHosts(plan, c)] : []),
  ]);
  const table = formatTable(
    ["#", "case", "engine", "op", "parameters", "reps", ...(remote ? ["hosts"] : [])],
    rows,
  );
  const summary = `${plan.name}: ${plan.cases.length} cases, ${countRepetitions(plan)} repetitions`;
  return `${table}\n\n${summary}`;
}

/** "clients: h1, h2, h3 (ssh)", or "this machine". */
function describeHosts(plan: Plan, c: Case): string {
  const name = c.params.hosts;
  if (name === undefined) return "this machine";
  const group = plan.hosts[name]!;
  return `${name}: ${hostNames(group).join(", ")} (${group.transport})`;
}

function describeParams(c: Case): string {
  return (Object.keys(c.params) as ParamName[])
    .filter((key) => !HIDDEN.has(key) && c.sources[key] !== "builtin")
    .map((key) => `${key}=${formatParam(key, c.params[key]!)}`)
    .join(" ");
}
