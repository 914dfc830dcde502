/**
 * Screenshots of reports for the docs: builds the report of each run (or several runs), opens it in
 * Debian's Chromium and saves the top of the page as docs/screenshots/<name>.png.
 *
 *   npx tsx scripts/report-screenshots.ts quickstart=runs/…-quickstart shared-storage-dd=runs/…-shared-storage-dd \
 *     cloud-disk-pts=runs/…-cloud-disk-pts compare=runs/base,runs/new
 *
 * A value with a comma is a comparison (base,new). A name ending in `@telemetry` saves the first time-series
 * chart and the host telemetry under it instead of the top of the page; one ending in `@id1+id2…` saves the
 * charts or sections with those ids (from the first one's top to the last one's bottom). The runs behind the committed
 * screenshots:
 *   quickstart         benchspec run specs/quickstart.yaml
 *   shared-storage-dd  benchspec run specs/shared-storage-dd.yaml --set count=4 --set 'parallel=[2, 4]' --set repeat=2
 *   cloud-disk-pts     on two 256 MiB loop devices with direct I/O (losetup --find --show --direct-io=on dN.img),
 *   (and @chart-5+chart-6 as cloud-disk-pts-rounds, @chart-19 as -wsat, @chart-24 as -hir)
 *                      the command in docs/scenarios.md, scenario 2
 *   compare            two runs of the quickstart
 *   trend@trend+regressions
 *                      six runs of a spec in a git repository, committed between runs, the fourth beside a
 *                      CPU hog: the command in docs/scenarios.md, scenario 7 (a directory of runs)
 *   object-upload-telemetry@telemetry
 *                      benchspec run specs/object-upload-download.yaml --set size=1GiB \
 *                        --set 'multipart={partSize: 64MiB, queue: 4}' --set 'concurrency=[1, 4]' \
 *                        --set 'transfer.matrix.include=[{concurrency: 1, objects: 1}, {concurrency: 4, objects: 4}]' \
 *                        --set repeat=2 --set sample=250ms
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { compareRuns, DEFAULT_COMPARE } from "../src/results/compare.js";
import { VERSION } from "../src/cli/context.js";
import { buildReport } from "../src/report/index.js";
import { expandRunsDirs, loadInputs } from "../src/report/load.js";
import { latestRun, trendOfRuns } from "../src/report/trend-runs.js";

const OUT = join(import.meta.dirname, "..", "docs", "screenshots");
const WIDTH = 1280;
const MAX_HEIGHT = 2600;

const jobs = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf("=");
  if (at < 1) throw new Error(`expected name=run-dir[,run-dir], got ${arg}`);
  const [name, part] = arg.slice(0, at).split("@");
  return {
    name: name!,
    telemetry: part === "telemetry",
    figures: part && part !== "telemetry" ? part.split("+") : [],
    inputs: arg.slice(at + 1).split(","),
  };
});
if (jobs.length === 0) throw new Error("usage: report-screenshots.ts name=run-dir[,new-run-dir]…");

const work = await mkdtemp(join(tmpdir(), "benchspec-screenshots-"));
const context = await chromium.launchPersistentContext(join(work, "profile"), {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: WIDTH, height: 900 },
});
try {
  await mkdir(OUT, { recursive: true });
  for (const job of jobs) {
    const runs = await loadInputs(await expandRunsDirs(job.inputs));
    const comparison = runs.length === 2 ? compareRuns(runs[0]!, runs[1]!, DEFAULT_COMPARE) : undefined;
    // As `benchspec report` does: three or more runs of one spec over time, the latest in full.
    const trend = trendOfRuns(runs, DEFAULT_COMPARE);
    const { html } = await buildReport(trend ? [latestRun(runs, trend)] : runs, {
      version: VERSION,
      ...(comparison && { comparison }),
      ...(trend && { trend }),
    });
    const file = join(work, `${job.name}.html`);
    await writeFile(file, html);
    const page = await context.newPage();
    await page.goto(`file://${file}`);
    await page.waitForFunction(
      `[...document.querySelectorAll("figure.chart")].every((f) => f.classList.contains("rendered") || f.classList.contains("failed"))`,
    );
    const out = join(OUT, `${job.name}.png`);
    if (job.telemetry) {
      // From the top of the time series to the bottom of the telemetry figure under it.
      const top = await page
        .locator('figure[data-kind="timeseries"]:has(+ figure[data-kind="telemetry"])')
        .first()
        .boundingBox();
      const bottom = await page
        .locator('figure[data-kind="timeseries"] + figure[data-kind="telemetry"]')
        .first()
        .boundingBox();
      if (!top || !bottom) throw new Error(`${job.name}: no time series with host telemetry under it`);
      const clip = { x: 0, y: top.y - 8, width: WIDTH, height: bottom.y + bottom.height - top.y + 16 };
      await page.screenshot({ path: out, clip, fullPage: true });
    } else if (job.figures.length > 0) {
      // The named charts or sections (their ids), from the first one's top to the last one's bottom.
      const boxes = await Promise.all(
        job.figures.map((id) => page.locator(`[id="${id}"]`).first().boundingBox()),
      );
      if (boxes.some((box) => !box))
        throw new Error(`${job.name}: no chart with id ${job.figures.join(" / ")}`);
      const top = Math.min(...boxes.map((box) => box!.y));
      const bottom = Math.max(...boxes.map((box) => box!.y + box!.height));
      const clip = { x: 0, y: top - 8, width: WIDTH, height: Math.min(MAX_HEIGHT, bottom - top + 16) };
      await page.screenshot({ path: out, clip, fullPage: true });
    } else {
      const height = Math.min(
        MAX_HEIGHT,
        await page.evaluate<number>("document.documentElement.scrollHeight"),
      );
      await page.screenshot({ path: out, clip: { x: 0, y: 0, width: WIDTH, height }, fullPage: true });
    }
    await page.close();
    console.log(out);
  }
} finally {
  await context.close();
  await rm(work, { recursive: true, force: true });
}
