/**
 * The benchspec command line: wiring only. Each command lives in its own module and reports its exit code;
 * errors become one line on stderr, never a stack trace, and their code gives the exit status.
 */
import { printable } from "../platform/printable.js";
import { Command, CommanderError } from "commander";
import { BenchspecError } from "../platform/errors.js";
import { redactUrls } from "../platform/redact.js";
import { EXIT, VERSION, type Io } from "./context.js";
import { makeCleanCommand } from "./clean.js";
import { makeCompareCommand } from "./compare.js";
import { makeCompileCommand } from "./compile.js";
import { makeInitCommand } from "./init.js";
import { makeMergeCommand } from "./merge.js";
import { makePlanCommand } from "./plan.js";
import { makeReportCommand } from "./report.js";
import { makeRunCommand } from "./run.js";
import { makeSchemaCommand } from "./schema.js";
import { makeValidateCommand } from "./validate.js";
import { makeWorkerCommand } from "./worker.js";

export function makeProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command("benchspec")
    .description("declarative storage benchmarks: validate, plan, compile and run specs")
    .version(VERSION)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec init my.yaml
  $ benchspec validate specs/*.yaml
  $ benchspec plan specs/quickstart.yaml`,
    );
  for (const make of [
    makeValidateCommand,
    makePlanCommand,
    makeCompileCommand,
    makeRunCommand,
    makeCleanCommand,
    makeMergeCommand,
    makeReportCommand,
    makeCompareCommand,
    makeSchemaCommand,
    makeInitCommand,
  ]) {
    program.addCommand(make(io, setExit));
  }
  program.addCommand(makeWorkerCommand(io, setExit), { hidden: true });
  program.commands.forEach((command) => command.exitOverride().configureOutput(program.configureOutput()));
  return program.exitOverride();
}

/**
 * A reader that goes away (`benchspec plan … | head -2`) makes every later write to that stream fail with
 * EPIPE (a closed terminal: EIO), reported as an 'error' event that would crash Node with a stack trace. Such writes are dropped
 * instead: the command (a run above all) carries on to its normal end and cleanup.
 */
const guarded = new WeakSet<object>();
export function tolerateClosedPipes(io: Io): void {
  for (const [name, stream] of [
    ["stdout", io.stdout],
    ["stderr", io.stderr],
  ] as const) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    let reported = false;
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (["EPIPE", "EIO", "ERR_STREAM_DESTROYED"].includes(error.code ?? "") || reported) return;
      // Anything else (a full disk behind a redirect) is said once, where it can still be read.
      reported = true;
      if (name === "stdout") io.stderr.write(`benchspec: cannot write to stdout: ${error.message}\n`);
    });
  }
}

export async function main(argv: readonly string[], io: Io = process): Promise<number> {
  tolerateClosedPipes(io);
  let exitCode: number = EXIT.ok;
  const program = makeProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit 0; usage errors (already printed by commander) are "invalid input".
      return error.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    }
    if (error instanceof BenchspecError && error.code !== "internal") {
      io.stderr.write(`benchspec: ${printable(redactUrls(error.message), { lines: true })}\n`);
      return error.exitCode;
    }
    io.stderr.write(
      `benchspec: internal error: ${printable(redactUrls((error as Error)?.message ?? String(error)), { lines: true })}\n`,
    );
    if (io.env.BENCHSPEC_DEBUG) io.stderr.write(`${(error as Error)?.stack}\n`);
    return EXIT.failure;
  }
}
