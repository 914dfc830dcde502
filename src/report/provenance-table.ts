/** The report's provenance table: where each run's rows came from, what ran them, and when. */
import { escapeHtml } from "./escape.js";
import { formatMetric, formatNumber } from "./format.js";
import type { InputKind, RunData } from "./model.js";

const INPUT_LABELS: Record<InputKind, string> = {
  run: "run directory",
  results: "results file",
  fio: "fio JSON output",
};

/** Provenance of each run: spec, host, tool versions, targets, times. */
export function provenanceTable(runs: readonly RunData[]): string {
  const field = (run: RunData): [string, string][] => {
    const p = run.provenance;
    const s = run.state;
    const items: [string, string][] = [
      ["input", `${INPUT_LABELS[run.kind]}: ${run.path}`],
      ["spec", `${run.plan.name}${p?.spec.file ? ` (${p.spec.file})` : ""}`],
      ["spec hash", run.plan.specHash ?? p?.spec.hash ?? "–"],
    ];
    if (p?.spec.git) {
      const { commit, dirty, untracked } = p.spec.git;
      items.push([
        "git commit",
        `${commit}${untracked ? " (spec not committed)" : dirty ? " (spec modified since)" : ""}`,
      ]);
    }
    if (p?.spec.sets?.length) items.push(["--set", p.spec.sets.join("  ")]);
    if (s) items.push(["status", `${s.status}${s.runId ? ` (run ${s.runId})` : ""}`]);
    const start = p?.start ?? s?.start;
    const end = p?.end ?? s?.end;
    if (start)
      items.push([
        "time",
        `${start}${end ? ` → ${end} (${formatNumber((Date.parse(end) - Date.parse(start)) / 1000)} s)` : ""}`,
      ]);
    if (p?.merged) {
      // Merged from runs on several hosts: each one, not the first one's machine alone.
      for (const m of p.merged.runs)
        items.push([
          `host ${m.host}`,
          `${m.dir}${m.hostname && m.hostname !== m.host ? ` (hostname ${m.hostname})` : ""}: ${m.status} run ${m.runId}, ${m.start}${m.end ? ` → ${m.end}` : ""}`,
        ]);
    } else if (p?.host) {
      items.push([
        "host",
        `${p.host.hostname}: ${p.host.os} ${p.host.kernel}, ${p.host.cpu}, ${p.host.cores} cores, ${formatMetric("throughput", p.host.memoryBytes).replace("/s", "")} memory`,
      ]);
    }
    if (p?.versions)
      items.push([
        "versions",
        Object.entries(p.versions)
          .map(([k, v]) => `${k}: ${v}`)
          .join("; "),
      ]);
    if (p?.targets) {
      for (const [name, t] of Object.entries(p.targets))
        items.push([`target ${name}`, [t.location, t.fsType].filter(Boolean).join(", ") || "–"]);
    }
    items.push([
      "rows",
      `${run.rows.measured} measured, ${run.rows.warmup} warm-up, ${run.rows.failed} failed${run.rows.sources.length ? `; source: ${run.rows.sources.join(", ")}` : ""}`,
    ]);
    return items;
  };
  return runs
    .map(
      (run) =>
        `<h3>${escapeHtml(run.label)}</h3><dl class="provenance">${field(run)
          .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
          .join("")}</dl>`,
    )
    .join("\n");
}
