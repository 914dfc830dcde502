import { Writable } from "node:stream";
import { main } from "../../src/cli/main.js";

/** Runs the CLI in-process with captured output. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await main(["node", "benchspec", ...args], {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    env,
  });
  return { code, stdout, stderr };
}
