/**
 * The live metrics endpoint's own cost (`run --metrics`): CPU to fold a repetition's row into the counters
 * (its latency histogram decoded and re-binned into the fixed buckets) and to render one scrape, for a
 * long run's worth of series — 100 cases × 3 hosts, each with a histogram of 100,000 latencies — as a share
 * of one core at a scrape every 15 s (Prometheus's common interval) plus a row a second (repetitions are
 * rarely shorter). Target: < 0.5 % of a core, below the spread of every figure a run measures (the
 * repetitions' CVs are 1 % and more on this machine), so that no figure moves by it.
 */
import { LiveMetrics } from "../src/results/live-metrics.js";
import { encodeSeconds } from "../src/rows/histogram.js";
import type { ResultRow } from "../src/rows/row.js";
import type { BenchLine } from "./lines.js";

const CASES = 100;
const HOSTS = ["h1", "h2", "h3"];
const SCRAPES = 50;

export function benchMetrics(log: (line: string) => void): BenchLine[] {
  // A spread of latencies like a loaded store's: 0.1 ms … 1 s, log-uniform.
  const histogram = encodeSeconds(Array.from({ length: 100_000 }, (_, i) => 1e-4 * 1e4 ** ((i * 0.618) % 1)));
  const part = {
    ok: true,
    start: "",
    end: "",
    bytes: 1e8,
    ops: 100_000,
    seconds: 1,
    throughput: 1e8,
    iops: 1e5,
  };
  const row = (c: number): ResultRow => ({
    v: 1,
    source: "run",
    spec: "bench",
    specHash: "h",
    case: `c${c}`,
    workload: "w",
    target: "t",
    engine: "s3",
    op: "get",
    params: {},
    repetition: 1,
    warmup: false,
    ...part,
    hosts: HOSTS.map((host) => ({ host, ...part, histograms: { latency: histogram } })),
  });
  // Warm the JIT and the histogram decoder (their one-time start is not a per-row cost).
  const warm = new LiveMetrics("warm-up");
  for (let c = 0; c < 20; c++) {
    const labels = { case: `c${c}`, workload: "w", target: "t", engine: "s3", op: "get" };
    warm.repetitionDone(labels, row(c));
    warm.render();
  }
  const metrics = new LiveMetrics("bench");
  const cpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  let before = cpu();
  for (let c = 0; c < CASES; c++) {
    const labels = { case: `c${c}`, workload: "w", target: "t", engine: "s3", op: "get" };
    metrics.caseStart(labels, CASES);
    metrics.repetitionDone(labels, row(c));
    metrics.caseDone();
  }
  const perRowMs = (cpu() - before) / CASES;
  before = cpu();
  let bytes = 0;
  for (let i = 0; i < SCRAPES; i++) bytes = metrics.render().length;
  const perScrapeMs = (cpu() - before) / SCRAPES;
  log(
    `metrics: ${perRowMs.toFixed(2)} ms CPU per row of ${HOSTS.length} hosts, ${perScrapeMs.toFixed(2)} ms per scrape of ${CASES * HOSTS.length} series (${(bytes / 1024).toFixed(0)} KiB)`,
  );
  // A row a second and a scrape every 15 s, as a share of one core.
  const share = (perRowMs / 1000 + perScrapeMs / 15_000) * 100;
  return [
    {
      section: "live metrics",
      metric: `CPU of --metrics: a row of ${HOSTS.length} hosts a second, a scrape of ${CASES * HOSTS.length} series every 15 s`,
      unit: "% of a core",
      engine: share,
      target: "< 0.5 %",
      verdict: share < 0.5 ? "PASS" : "BELOW",
      detail: { perRowMs, perScrapeMs, scrapeBytes: bytes },
    },
  ];
}
