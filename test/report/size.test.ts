/**
 * The page stays a few MB at any case count: tables and charts are cut, and the CSV download is embedded
 * only up to its own limit (a 10,000-case report was 15.8 MB, nearly all of it that CSV and the charts).
 */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { VERSION } from "../../src/cli/context.js";
import { validateText } from "../../src/plan/load.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { synthRows } from "./support.js";

const MB = 1e6;

describe("report size", () => {
  it("a 10,000-case run makes a page under 3.5 MB that says where every case is", async () => {
    const loaded = validateText(
      "big.yaml",
      stringify({
        benchspec: 1,
        name: "big",
        targets: { scratch: { kind: "fs" } },
        workloads: [
          {
            name: "grid",
            engine: "fio",
            op: "randrw",
            repeat: 3,
            matrix: {
              bs: ["512B", "1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "1MiB"],
              read: [0, 10, 20, 30, 40, 50, 60, 70, 80, 100],
              iodepth: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
              jobs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            },
          },
        ],
      }),
    );
    const plan = loaded.plan!;
    expect(plan.cases).toHaveLength(10_000);
    const run = runFromRows("big", plan, synthRows(plan));
    const { html } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(Buffer.byteLength(html)).toBeLessThan(3.5 * MB);
    expect(html).toContain("First 1000 of 10000 rows");
    expect(html).toContain("The per-case summary of 10000 cases");
  }, 120_000);
});
