/**
 * Vitest global setup: builds dist/ once per run, so the tests that start the real `bin/benchspec.js`
 * run the code under test and never a stale build.
 */
import { execa } from "execa";
import { ROOT } from "./spec.js";

export default async function setup(): Promise<void> {
  const build = await execa("npx", ["tsc", "-p", "tsconfig.build.json"], {
    cwd: ROOT,
    all: true,
    reject: false,
  });
  if (build.exitCode !== 0) {
    throw new Error(`npx tsc -p tsconfig.build.json failed (exit ${build.exitCode}):\n${build.all ?? ""}`);
  }
  await execa("node", ["scripts/copy-assets.mjs"], { cwd: ROOT });
}
