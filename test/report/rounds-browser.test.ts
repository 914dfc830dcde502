/**
 * The report of a real run in rounds (real fio) on two targets, opened in Chromium: each target's
 * convergence and measurement-window plots draw, and they say steady state was not reached (a zero excursion
 * is never met).
 */
import { execa } from "execa";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { launchChromium, openReport } from "../support/chromium.js";
import { ROOT } from "../support/spec.js";

let work = "";
afterAll(() => work && rm(work, { recursive: true, force: true }));

const cli = (args: string[]) =>
  execa("node", [join(ROOT, "bin", "benchspec.js"), ...args], { cwd: work, reject: false, all: true });

describe("report of a workload in rounds (Chromium)", () => {
  it("draws each target's convergence and measurement-window plots and says steady state was not reached", async () => {
    work = await mkdtemp(join(tmpdir(), "benchspec-rounds-report-"));
    await mkdir(join(work, "disk1"));
    await mkdir(join(work, "disk2"));
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "rounds-report",
        targets: {
          disk1: { kind: "fs", path: join(work, "disk1") },
          disk2: { kind: "fs", path: join(work, "disk2") },
        },
        workloads: [
          {
            name: "pts",
            engine: "fio",
            op: "randwrite",
            ioengine: "psync",
            size: "8MiB",
            target: ["disk1", "disk2"],
            bs: ["4KiB", "64KiB"],
            duration: "1s",
            rounds: { track: { where: { bs: "4KiB" }, metric: "iops" }, window: 2, excursion: "0%", max: 3 },
          },
        ],
      }),
    );
    const ran = await cli(["run", spec, "--out", join(work, "run"), "-q"]);
    expect(ran.exitCode, ran.all).toBe(0);
    const html = join(work, "report.html");
    const reported = await cli(["report", join(work, "run"), "-o", html]);
    expect(reported.exitCode, reported.all).toBe(0);

    const context = await launchChromium(join(work, "profile"));
    try {
      const { page, errors } = await openReport(context, html);
      const rounds = await page.evaluate<{ failed: boolean; marks: number; text: string }[]>(
        `[...document.querySelectorAll('figure[data-kind="rounds"]')].map((f) => ({ failed: f.classList.contains("failed"), marks: f.querySelectorAll(".live svg g.role-mark > *").length, text: f.textContent }))`,
      );
      expect(rounds).toHaveLength(4);
      for (const chart of rounds) {
        expect(chart.failed).toBe(false);
        expect(chart.marks).toBeGreaterThan(0);
        expect(chart.text).toContain("Steady state NOT reached in 3 rounds (measurement window: rounds 2–3)");
      }
      // A pair of plots per target, titled with it, each of its own tracked case.
      for (const [i, target] of ["disk1", "disk2"].entries()) {
        const [convergence, window] = [rounds[2 * i]!, rounds[2 * i + 1]!];
        expect(convergence.text).toContain(`pts on ${target}: steady-state convergence`);
        expect(convergence.text).toContain(`the tracked case, pts.${target}.randwrite.bs-4KiB`);
        expect(window.text).toContain(`pts on ${target}: measurement window`);
        expect(window.text).toMatch(/max − min = [\d.]+% of the average \(allowed 0%\)/);
        expect(window.text).toContain(`of pts.${target}.randwrite.bs-4KiB in the window`);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 240_000);
});
