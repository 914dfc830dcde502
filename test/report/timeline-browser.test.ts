/**
 * A real fio run on two targets with vars of their own, reported with the workload's clocks (`x: written`,
 * `x: elapsed`) and a limit formula over a target var, opened from file:// in Debian's Chromium: both
 * charts draw, each target's limit rule is in its colour and says its value and formula, and the expect
 * table gives each target's bound.
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { VERSION } from "../../src/cli/context.js";
import { CATEGORY_COLORS } from "../../src/report/charts/limits.js";
import { buildReport, loadInputs } from "../../src/report/index.js";
import { CHROMIUM, launchChromium, openReport } from "../support/chromium.js";
import { ROOT } from "../support/spec.js";

const FORMULA = "min(50 + 0.1 * capacityGiB, 80) * 1MB/s";

let work: string;
let html: string;
let runOutput: string;
let context: BrowserContext;

const cli = (args: string[]) =>
  execa("node", [join(ROOT, "bin", "benchspec.js"), ...args], { cwd: work, reject: false, all: true });

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/setup-tools.sh (Debian package chromium)`);
  work = await mkdtemp(join(tmpdir(), "benchspec-timeline-"));
  for (const dir of ["small", "large"]) await mkdir(join(work, dir));
  const spec = join(work, "two-disks.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "two-disks",
      vars: { capacityGiB: 100 },
      targets: {
        small: { kind: "fs", path: join(work, "small") },
        large: { kind: "fs", path: join(work, "large"), vars: { capacityGiB: 400 } },
      },
      workloads: [
        {
          name: "wsat",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "16MiB",
          bs: "4KiB",
          duration: "1s",
          sample: "250ms",
          repeat: 2,
          target: ["small", "large"],
        },
      ],
      // 1 KB/s per GiB: met by any disk, and a different number per target.
      expect: [{ workload: "wsat", metric: "throughput", atLeast: "capacityGiB * 1KB/s" }],
      report: {
        limits: [{ label: "vendor", throughput: FORMULA }],
        charts: [
          { workload: "wsat", x: "written", y: "throughput", color: "target" },
          { workload: "wsat", x: "elapsed", y: "iops", color: "target" },
        ],
      },
    }),
  );
  const run = await cli(["run", spec, "--out", join(work, "run")]);
  runOutput = run.all ?? "";
  if (run.exitCode !== 0) throw new Error(`benchspec run failed (${run.exitCode}):\n${runOutput}`);
  html = join(work, "report.html");
  const report = await cli(["report", join(work, "run"), "-o", html]);
  if (report.exitCode !== 0) throw new Error(`benchspec report failed:\n${report.all}`);
  context = await launchChromium(join(work, "profile"));
}, 300_000);

afterAll(async () => {
  await context?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the workload's clocks and per-target limits in Chromium (a real fio run)", () => {
  it("the console gives each target's bound with its formula", () => {
    expect(runOutput).toMatch(
      /expectation met: expect\[0\] wsat\.large\.\S+ throughput .+ \(expected ≥ 400\.0 kB\/s = capacityGiB \* 1KB\/s with large's vars\)/,
    );
  });

  it("each target's data written and time are counted from its own first repetition", async () => {
    const { charts } = await buildReport(await loadInputs([join(work, "run")]), { version: VERSION });
    for (const title of [/by data written$/, /over time$/]) {
      const chart = charts.find((c) => c.kind === "timeseries" && title.test(c.title))!;
      const points = (chart.spec.data as { values: { k: string; t: number; c: string }[] }).values.filter(
        (v) => v.k === "ts",
      );
      const targets = [...new Set(points.map((p) => p.c))];
      expect(targets).toHaveLength(2);
      // The targets ran one after the other: on one clock the second would start where the first ended.
      for (const target of targets) {
        const first = Math.min(...points.filter((p) => p.c === target).map((p) => p.t));
        const last = Math.max(...points.filter((p) => p.c === target).map((p) => p.t));
        expect(first).toBeLessThan(last / 2);
      }
    }
  });

  it("x: written and x: elapsed draw, with each target's limit rule in its colour", async () => {
    const { page, errors } = await openReport(context, html);
    expect(errors).toEqual([]);
    const series = page.locator('figure[data-kind="timeseries"]');
    expect(await series.count()).toBe(2);
    const svgs = [
      await series.nth(0).locator(".live svg.marks").innerHTML(),
      await series.nth(1).locator(".live svg.marks").innerHTML(),
    ];
    expect(svgs[0]).toContain("written to the target since the workload's first repetition there (GiB)");
    expect(svgs[1]).toContain("time since the workload's first repetition on the target (s)");
    // The throughput chart: a rule per target, labelled with the target, its value and the formula, in
    // the colour its cases have (the chart colours by target: small first, large second).
    expect(svgs[0]).toContain(`small: vendor 60.00 MB/s = ${FORMULA}`);
    expect(svgs[0]).toContain(`large: vendor 80.00 MB/s = ${FORMULA}`);
    const ruleStrokes = await series
      .nth(0)
      .locator(".live svg.marks g.mark-rule path, .live svg.marks g.mark-rule line")
      .evaluateAll((els) => els.map((el) => el.getAttribute("stroke")));
    // (Axis ticks and grid lines are rules too, in greys; no limit is red: both are a target's.)
    expect(ruleStrokes).toEqual(expect.arrayContaining([CATEGORY_COLORS[0], CATEGORY_COLORS[1]]));
    expect(ruleStrokes).not.toContain("#b03a2e");
    // Both charts drew their points: two repetitions per target.
    for (const svg of svgs) expect(svg.match(/role-mark/g)?.length ?? 0).toBeGreaterThan(0);
    // The expect table: each target's bound with the formula, the large disk's saying whose vars.
    const expectTable = await page.locator("table.expect").innerText();
    expect(expectTable).toContain("≥ 100.0 kB/s (capacityGiB * 1KB/s)");
    expect(expectTable).toContain("≥ 400.0 kB/s (capacityGiB * 1KB/s with large's vars)");
    await page.screenshot({ path: join(work, "timeline.png"), fullPage: true });
    await page.close();
  });
});
