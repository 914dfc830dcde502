import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once per run for the tests that start bin/benchspec.js.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Integration tests start real servers and real fio; two cores do not profit from more parallel files.
    maxWorkers: 2,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
