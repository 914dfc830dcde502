/**
 * Starting a worker thread on a module beside the caller: its .js in the build; run from source (tests,
 * `tsx`), its .ts, which a thread cannot load by itself — it first registers tsx (a dev dependency).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** `callerUrl` is the caller's import.meta.url; `name` the module's file name without extension. */
export function startWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  const fromSource = callerUrl.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, callerUrl);
  if (!fromSource) return new Worker(entry, { workerData });
  // tsx's ESM entry: `require.resolve` would give the CommonJS one, which cannot register ESM hooks here.
  const manifest = createRequire(callerUrl).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
    exports: { "./esm/api": { import: { default: string } } };
  };
  const tsx = pathToFileURL(join(dirname(manifest), exports["./esm/api"].import.default)).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * The first message from `worker` that `matches`; rejects if the thread fails or exits first (`label`
 * names it in the error: "a <label> exited (code N)").
 */
export function nextMessage<M>(
  worker: Worker,
  label: string,
  matches: (message: M) => boolean = () => true,
): Promise<M> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: M) => {
      if (!matches(message)) return;
      done();
      resolve(message);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`a ${label} exited (code ${code})`));
    };
    const done = () => {
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
    };
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
  });
}
