import { Command, Option } from "commander";
import { BenchspecError } from "../platform/errors.js";
import { EXIT, VERSION, type Io } from "./context.js";

/**
 * `benchspec worker`: started on a client host by `benchspec run` (over ssh, or by srun), never by people:
 * hidden from the help. It speaks the worker protocol on stdin and stdout (src/hosts/protocol.ts).
 */
export function makeWorkerCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("worker")
    .description("run cases for a benchspec coordinator on another machine (started by benchspec run)")
    .addOption(new Option("--index <n>", "which worker of the group this is (default: $SLURM_PROCID)"))
    .addOption(new Option("--name <host>", "the host's name in rows and messages (default: its hostname)"))
    .action(async (options: { index?: string; name?: string }) => {
      const text = options.index ?? io.env.SLURM_PROCID;
      const index = Number(text);
      if (text === undefined || !Number.isInteger(index) || index < 0)
        throw new BenchspecError("usage", "worker: --index N (or SLURM_PROCID) must be a whole number ≥ 0");
      const { runWorker } = await import("../hosts/worker.js");
      await runWorker({
        index,
        ...(options.name && { name: options.name }),
        version: VERSION,
        input: process.stdin,
        output: io.stdout,
        log: (line) => io.stderr.write(`benchspec worker: ${line}\n`),
      });
      setExit(EXIT.ok);
    });
}
