// The layers of src/: every import from one top-level folder to another must point down this list (a
// folder may import only folders listed before it), so no two folders depend on each other through any
// path. docs/architecture.md draws the same list. Exit 1, naming each import that points up or sideways.
// Usage: node scripts/check-layers.mjs [srcDir]
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

export const LAYERS = [
  ["platform", "processes, ports, waits, tools, errors: knows no stage"],
  ["diagnostics", "diagnostics as data and their one renderer"],
  ["rows", "the model of rows: result rows and series, metrics, statistics, histograms, telemetry summaries"],
  ["spec", "the language: units, schema, loading, rules; the engines it is given as a table of facts"],
  ["plan", "the Plan IR and expansion"],
  ["emit", "the one writer that owns quoting, and the artifact vocabulary"],
  ["telemetry", "sampling the client host from /proc, and the saturation verdict"],
  ["targets", "target kinds, one folder each, and their registry"],
  [
    "engines",
    "engines, one folder each (facts and code), and their registry, which gives the language its table",
  ],
  ["results", "the run model (every figure, decided once), the run directory, compare, merge"],
  ["compile", "artifacts for other runners"],
  ["report", "the HTML report"],
  ["execution", "one case's repetitions measured on this machine"],
  ["hosts", "cases on client hosts: worker protocol, coordinator, transports"],
  ["run", "the run as a whole: the case loop, rounds, resume, signals, clean"],
  ["cli", "one file per command"],
];

const src = resolve(process.argv[2] ?? join(import.meta.dirname, "..", "src"));
const rank = new Map(LAYERS.map(([folder], i) => [folder, i]));
const files = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.ts$/.test(e.name))
  .map((e) => join(e.parentPath, e.name));
const folderOf = (file) => relative(src, file).split(sep)[0];
const problems = [];
for (const file of files) {
  const from = folderOf(file);
  if (!rank.has(from)) {
    problems.push(`${relative(src, file)}: folder "${from}" is in no layer (add it to LAYERS)`);
    continue;
  }
  const text = readFileSync(file, "utf8");
  // Static imports and re-exports (type-only ones too: a layer's types are part of it), and dynamic ones.
  const imports =
    /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const match of text.matchAll(imports)) {
    const target = resolve(dirname(file), match[1] ?? match[2]);
    if (!target.startsWith(src + sep)) continue;
    const to = folderOf(target);
    if (to === from) continue;
    if (!rank.has(to) || rank.get(to) > rank.get(from))
      problems.push(
        `${relative(src, file)} imports ${relative(src, target)}: ${from} may not import ${to} (a later layer)`,
      );
    else if (rank.get(to) === rank.get(from))
      problems.push(`${relative(src, file)} imports ${relative(src, target)}: same layer`);
  }
}
for (const problem of problems) console.error(problem);
console.log(
  `layers: ${LAYERS.length} folders, ${files.length} files, ${problems.length} import(s) pointing up`,
);
process.exit(problems.length > 0 ? 1 : 0);
