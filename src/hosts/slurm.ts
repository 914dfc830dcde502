/**
 * Hosts placed by Slurm: one `srun` runs one worker per node (SLURM_PROCID is the worker's index), inside
 * the user's allocation or asking for one. srun gives every task the same stdin (--input=all) and merges
 * their stdout line by line; messages say whom they are for and from whom, so that is all it takes.
 */
import { execa } from "execa";
import type { HostTransport } from "./types.js";
import { startWorkerProcess } from "./worker-process.js";

export const slurmTransport: HostTransport<"slurm"> = {
  // The nodes are Slurm's choice: until their workers say hello they are known by their task number.
  hostNames: (group) => Array.from({ length: group.nodes }, (_, task) => `task ${task}`),
  namedByWorkers: true,
  start(group, command, events, env) {
    const srun = startWorkerProcess(
      "srun",
      [
        `--nodes=${group.nodes}`,
        `--ntasks=${group.nodes}`,
        "--ntasks-per-node=1",
        "--input=all",
        // One worker's failure is the coordinator's to handle (it names the host); the others go on.
        "--kill-on-bad-exit=0",
        ...(group.srun ?? []),
        "sh",
        "-c",
        `exec ${command} worker`,
      ],
      (line) => events.line(line, undefined),
      (why) => events.exit(undefined, why),
      env,
    );
    return {
      write: (_index, line) => srun.write(line),
      stderr: () => srun.stderr(),
      stop: async (graceMs) => {
        await srun.stop(graceMs);
      },
    };
  },
  async removeDirectory(group, host, path) {
    const result = await execa(
      "srun",
      [`--nodelist=${host}`, "--nodes=1", "--ntasks=1", ...(group.srun ?? []), "rm", "-rf", "--", path],
      { reject: false, stdin: "ignore", timeout: 60_000 },
    );
    if (result.exitCode !== 0)
      throw new Error(`srun on ${host}: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`);
  },
};
