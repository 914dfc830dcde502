/**
 * Reports from real runs (real dd and fio, through the built CLI), opened from file:// in Debian's
 * Chromium: every chart draws marks, nothing logs an error, nothing goes to the network, limits and
 * expectations are on the page, and a hostile spec runs no script. Also without JavaScript: the
 * pre-rendered images are there.
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ROOT } from "../support/spec.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];
const HOSTILE = "</script><script>window.__pwned=1</script>";
const LIMIT_COLOR = "#b03a2e";

let work: string;
const reports: Record<"quickstart" | "compare" | "hostile" | "fio" | "merged", string> = {
  quickstart: "",
  compare: "",
  hostile: "",
  fio: "",
  merged: "",
};
let context: BrowserContext;
/** Chromium profile directories, removed after the tests. */
const profiles: string[] = [];
async function profileDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-chromium-"));
  profiles.push(dir);
  return dir;
}

const cli = (args: string[]) =>
  execa("node", [join(ROOT, "bin", "benchspec.js"), ...args], { cwd: work, reject: false, all: true });

async function run(args: string[]) {
  const result = await cli(["run", ...args, "-q"]);
  if (result.exitCode !== 0)
    throw new Error(`benchspec run ${args.join(" ")} failed (${result.exitCode}):\n${result.all}`);
}

async function report(args: string[], out: string) {
  const result = await cli(["report", ...args, "-o", out]);
  if (result.exitCode !== 0) throw new Error(`benchspec report failed:\n${result.all}`);
  return out;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/setup-tools.sh (Debian package chromium)`);
  work = await mkdtemp(join(tmpdir(), "benchspec-browser-"));
  const quickstart = join(ROOT, "specs", "quickstart.yaml");
  await run([quickstart, "--set", "repeat=2", "--out", join(work, "q1")]);
  await run([quickstart, "--set", "repeat=2", "--out", join(work, "q2")]);

  // Every free-text field hostile; the target path too (the directory must exist).
  const hostileDir = join(work, "target", HOSTILE);
  await mkdir(hostileDir, { recursive: true });
  const spec = join(work, "hostile.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "hostile",
      description: `${HOSTILE} description\u2028next`,
      targets: { scratch: { kind: "fs", path: hostileDir } },
      workloads: [
        {
          name: "w",
          engine: "dd",
          op: "write",
          bs: "64KiB",
          count: 8,
          repeat: 2,
          matrix: { parallel: [1, 2] },
        },
      ],
      expect: [
        { workload: "w", description: `${HOSTILE} expectation`, metric: "throughput", atLeast: "1MB/s" },
      ],
      report: { title: `${HOSTILE} title`, limits: [{ label: `${HOSTILE} limit`, throughput: "2MB/s" }] },
    }),
  );
  await run([spec, "--out", join(work, "h")]);
  // A results file from elsewhere may carry any spec name.
  const rows = (await readFile(join(work, "h", "results.ndjson"), "utf8")).replaceAll(
    '"spec":"hostile"',
    `"spec":${JSON.stringify(HOSTILE)}`,
  );
  await writeFile(join(work, "hostile-results.ndjson"), rows);

  reports.quickstart = await report([join(work, "q1")], join(work, "quickstart.html"));
  reports.compare = await report(
    ["--compare", join(work, "q1"), join(work, "q2")],
    join(work, "compare.html"),
  );
  reports.hostile = await report(
    [join(work, "h"), join(work, "hostile-results.ndjson")],
    join(work, "hostile.html"),
  );
  const raw = join(work, "q1", "raw");
  const fioOutputs = (await readdir(raw))
    .filter((f) => /^fio-4k\.scratch\.randread\.r\d\.json$/.test(f))
    .map((f) => join(raw, f));
  reports.fio = await report(fioOutputs, join(work, "fio.html"));
  // The two quickstart runs as two hosts' (benchspec merge), for the per-host view.
  const merged = await cli([
    "merge",
    `${join(work, "q1")}=h1`,
    `${join(work, "q2")}=h2`,
    "-o",
    join(work, "m"),
  ]);
  if (merged.exitCode !== 0) throw new Error(`benchspec merge failed:\n${merged.all}`);
  reports.merged = await report([join(work, "m")], join(work, "merged.html"));

  context = await chromium.launchPersistentContext(await profileDir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
}, 300_000);

afterAll(async () => {
  await context?.close();
  if (work) await rm(work, { recursive: true, force: true });
  await Promise.all(profiles.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
}

async function open(file: string): Promise<Opened> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  // Every chart either rendered or failed.
  // (Browser-side code as strings: the test is compiled without the DOM library.)
  await page.waitForFunction(
    `[...document.querySelectorAll("figure.chart")].every((f) => f.classList.contains("rendered") || f.classList.contains("failed"))`,
    null,
    {
      timeout: 30_000,
    },
  );
  return { page, errors, requests };
}

/** Per chart: the number of data marks (Vega's role-mark groups' items) in the live SVG. */
const markCounts = (page: Page) =>
  page.evaluate<{ id: string; failed: boolean; marks: number }[]>(
    `[...document.querySelectorAll("figure.chart")].map((f) => ({ id: f.id, failed: f.classList.contains("failed"), marks: f.querySelectorAll(".live svg g.role-mark > *").length }))`,
  );

async function expectHealthy(opened: Opened, minCharts: number) {
  const charts = await markCounts(opened.page);
  expect(charts.length).toBeGreaterThanOrEqual(minCharts);
  for (const chart of charts) {
    expect(chart.failed, chart.id).toBe(false);
    expect(chart.marks, chart.id).toBeGreaterThan(0);
  }
  expect(opened.errors).toEqual([]);
  expect(opened.requests.filter((url) => !/^(file|data|blob):/.test(url))).toEqual([]);
  expect(opened.requests.filter((url) => url.startsWith("file:"))).toHaveLength(1);
}

describe("reports in Chromium (real runs, file://)", () => {
  it("quickstart: every chart draws, no errors, no network, expect table and chart", async () => {
    const opened = await open(reports.quickstart);
    await expectHealthy(opened, 5);
    const { page } = opened;
    expect(await page.locator("table.expect tbody tr").count()).toBe(1);
    expect(await page.locator('figure[data-kind="expect"]').count()).toBe(1);
    expect(await page.locator('figure[data-kind="timeseries"]').count()).toBe(1);
    // The host under the time series: CPU and network, right below it, drawn (expectHealthy: marks).
    const under = page.locator('figure[data-kind="timeseries"] + figure[data-kind="telemetry"]');
    expect(await under.count()).toBe(1);
    expect(await under.locator(".live svg").first().innerHTML()).toMatch(
      /CPU \(% of all cores\)[\s\S]*network \(/,
    );
    expect(await page.locator('figure[data-kind="latency"]').count()).toBe(1);
    expect(await page.locator("table.cases").count()).toBe(2);
    // The verdict of every case, the rule in its header's tooltip.
    const verdict = page.locator('table.cases th[title^="Saturated:"]');
    expect(await verdict.count()).toBe(2);
    expect(await verdict.first().innerText()).toBe("client host");
    const cases = (await page.locator("table.cases").allInnerTexts()).join("\n");
    expect(cases.match(/none saturated|client CPU: |network: |device: /g)?.length).toBeGreaterThanOrEqual(6);
    expect(await page.locator("dl.provenance").count()).toBe(1);
    await page.close();
  });

  it("a comparison of two runs: grouped by run, the comparison chart and table", async () => {
    const opened = await open(reports.compare);
    await expectHealthy(opened, 6);
    const { page } = opened;
    expect(await page.locator('figure[data-kind="compare"]').count()).toBe(1);
    expect(await page.locator("table.compare tbody tr").count()).toBe(6);
    // The dd chart's legend lists both runs.
    const legend = await page
      .locator('figure[data-kind="sweep"]')
      .first()
      .locator(".live svg .role-legend")
      .first()
      .innerHTML();
    expect(legend).toContain(">q1<");
    expect(legend).toContain(">q2<");
    await page.close();
  });

  it("runs merged from two hosts: each host's row in the hosts table, each host's series drawn", async () => {
    const opened = await open(reports.merged);
    await expectHealthy(opened, 5);
    const { page } = opened;
    // Quickstart's six cases, each with a row for all hosts and one per host.
    expect(await page.locator("table.hosts tbody tr").count()).toBe(18);
    const hosts = await page.locator("table.hosts").allInnerTexts();
    expect(hosts.join("\n")).toMatch(/\bh1\b[\s\S]*\bh2\b/);
    expect(hosts.join("\n")).toContain("all 2 hosts");
    // fio's series per host: the legend names both hosts.
    const legend = await page.locator('figure[data-kind="hosts"] .live svg .role-legend').first().innerHTML();
    expect(legend).toContain(">h1<");
    expect(legend).toContain(">h2<");
    // Each host's CPU its own line under the time series.
    const telemetry = await page.locator('figure[data-kind="telemetry"] .live svg').first().innerHTML();
    expect(telemetry).toMatch(/[ >]h1</);
    expect(telemetry).toMatch(/[ >]h2</);
    expect(await page.locator("dl.provenance").innerText()).toMatch(/host h1[\s\S]*host h2/);
    await page.close();
  });

  it("fio's own JSON output, imported: charts and tables", async () => {
    const opened = await open(reports.fio);
    await expectHealthy(opened, 2);
    expect(await opened.page.locator("table.cases tbody tr").count()).toBe(1);
    await opened.page.close();
  });

  it("a hostile spec runs no script and shows its text literally; limit rules and expect tables are there", async () => {
    const opened = await open(reports.hostile);
    await expectHealthy(opened, 2);
    const { page } = opened;
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    // Two inputs: the run (with its report.title) and a results file (whose spec name is hostile).
    expect(await page.locator("h1").innerText()).toBe(`benchspec report: ${HOSTILE} title, ${HOSTILE}`);
    expect(await page.locator("script").count()).toBe(6);
    expect(await page.locator("table.expect").innerText()).toContain(`${HOSTILE} expectation`);
    expect(await page.locator("table.expect tbody tr").count()).toBe(2);
    expect(await page.locator("dl.provenance").first().innerText()).toContain(HOSTILE);
    // The limit: a dashed rule in the limit colour and its label, in every sweep chart, and a table.
    const sweep = page.locator('figure[data-kind="sweep"] .live svg');
    expect(await sweep.locator(`g.role-mark > [stroke="${LIMIT_COLOR}"]`).count()).toBeGreaterThan(0);
    expect(await sweep.locator("text", { hasText: `${HOSTILE} limit` }).count()).toBeGreaterThan(0);
    expect(await page.locator("#limits table").innerText()).toContain(`${HOSTILE} limit`);
    await page.close();
  });

  it("at 1280 px a cases or hosts table fits (warnings on screen), or scrolls in a box whose scroll bar is in view; no cell's text cut", async () => {
    for (const [name, file] of Object.entries(reports)) {
      const opened = await open(file);
      const tables = await opened.page.evaluate<
        { right: number; clipped: number; scrolls: boolean; boxRight: number; boxHeight: number }[]
      >(
        `[...document.querySelectorAll("table.cases, table.hosts")].map((t) => { const box = t.parentElement.getBoundingClientRect(); return { right: t.querySelector("thead th:last-child").getBoundingClientRect().right, clipped: [...t.querySelectorAll("td, th")].filter((c) => c.scrollWidth > c.clientWidth + 1).length, scrolls: t.parentElement.scrollWidth > t.parentElement.clientWidth && getComputedStyle(t.parentElement).overflowX === "auto", boxRight: box.right, boxHeight: box.height }; })`,
      );
      expect(tables.length, name).toBeGreaterThan(0);
      for (const table of tables) {
        expect(table.clipped, name).toBe(0);
        // The hostile spec's limit label is one 45-character word: its column cannot be narrower.
        if (name === "hostile" && table.right > 1280) {
          expect(table.scrolls, name).toBe(true);
          expect(table.boxRight, name).toBeLessThanOrEqual(1280);
          expect(table.boxHeight, name).toBeLessThanOrEqual(900);
        } else {
          expect(table.right, name).toBeLessThanOrEqual(1280);
        }
      }
      await opened.page.close();
    }
  });

  it("without JavaScript: the pre-rendered charts show and nothing runs", async () => {
    const noJs = await chromium.launchPersistentContext(await profileDir(), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      javaScriptEnabled: false,
    });
    try {
      const page = await noJs.newPage();
      await page.goto(`file://${reports.hostile}`);
      const images = await page.evaluate<number[]>(
        `[...document.querySelectorAll("figure.chart .static img")].map((img) => img.naturalWidth)`,
      );
      expect(images.length).toBeGreaterThanOrEqual(2);
      for (const width of images) expect(width).toBeGreaterThan(100);
      expect(await page.locator("button.png").first().isVisible()).toBe(false);
      expect(await page.locator("figure.chart .toolbar a[download$='.svg']").count()).toBe(images.length);
    } finally {
      await noJs.close();
    }
  });
});
