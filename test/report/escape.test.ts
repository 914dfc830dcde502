import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { VERSION } from "../../src/cli/context.js";
import { csvCell, dataUri, escapeHtml, jsonForScript } from "../../src/report/escape.js";
import { buildReport, fillTemplate } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { interpreterAsScript, loadLibraries } from "../../src/report/render.js";
import { validateText } from "../../src/engines/language.js";
import { scenarioPlan, synthRows } from "./support.js";

const HOSTILE = "</script><script>window.__pwned=1</script>";
const LS = "\u2028";

/** A spec with every free-text field hostile (names must be plain, so the spec name comes from the rows). */
function hostilePlan() {
  const text = stringify({
    benchspec: 1,
    name: "hostile",
    description: `${HOSTILE} line${LS}separator & "quotes" 'single' <b>bold</b>`,
    targets: { scratch: { kind: "fs", path: `/tmp/${HOSTILE}`, description: HOSTILE } },
    workloads: [
      {
        name: "w",
        description: `${HOSTILE}${LS}`,
        engine: "dd",
        op: "write",
        bs: "1MiB",
        count: 2,
        matrix: { parallel: [1, 2] },
        repeat: 3,
      },
    ],
    expect: [{ workload: "w", description: `${HOSTILE}${LS}`, metric: "throughput", atLeast: "1MB/s" }],
    report: {
      title: `${HOSTILE} title${LS}`,
      limits: [{ label: `${HOSTILE} limit "q" ${LS}`, throughput: "200MB/s" }],
      charts: [
        { workload: "w", x: "parallel", y: "throughput", title: `${HOSTILE} chart ${LS}`, mark: "bar" },
      ],
    },
  });
  const result = validateText("hostile.yaml", text);
  if (!result.plan) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  // A results file from elsewhere may carry any spec name; plan.json may (one day) carry the description.
  return { ...result.plan, name: HOSTILE };
}

const scriptBlocks = (html: string) => [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)];

/** Every key and string value in a Vega-Lite spec, recursively. */
function walk(value: unknown, visit: (key: string, value: unknown) => void) {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

describe("escaping of user strings", () => {
  it("a hostile spec yields exactly the page's own script blocks, and every text shown literally", async () => {
    const plan = hostilePlan();
    const rows = synthRows(plan, { throughput: () => 150e6 }).map((r) => ({
      ...r,
      spec: HOSTILE,
      error: HOSTILE,
    }));
    const run = runFromRows(`${HOSTILE}${LS}`, plan, rows);
    const { html, charts } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });

    // One JSON data block, four libraries, one app script: nothing else.
    const blocks = scriptBlocks(html);
    expect(blocks).toHaveLength(6);
    expect(html.match(/<script/gi)?.length).toBe(6);
    expect(html.match(/<\/script/gi)?.length).toBe(6);
    // Outside the vendored libraries, no raw markup from a user string.
    const page = html.replace(/<script data-library="[^"]+">[\s\S]*?<\/script>/g, "");
    expect(page.includes("window.__pwned=1</script>")).toBe(false);
    expect(page.includes("<b>bold</b>")).toBe(false);

    // Shown literally: in text, in attributes (alt, title), in the data.
    const shown = escapeHtml(HOSTILE);
    expect(page.includes(`<h1>${shown} title`)).toBe(true);
    expect(page.includes(`<p class="description">${shown} line`)).toBe(true);
    expect(page.includes(`alt="${shown} chart`)).toBe(true);
    expect(page.includes(`&lt;b&gt;bold&lt;/b&gt;`)).toBe(true);
    const data = JSON.parse(
      html.match(/<script type="application\/json" id="benchspec-data">([\s\S]*?)<\/script>/)![1]!,
    );
    expect(JSON.stringify(data)).toContain(`${HOSTILE} chart ${LS}`);
    const dataBlock = blocks.find((b) => b[0].includes("benchspec-data"))![1]!;
    expect(dataBlock).not.toMatch(/[<>&\u2028\u2029]/);

    // No user string reaches a Vega expression, and every field name is one of the safe keys.
    const SAFE = new Set([
      "x",
      "c",
      "f",
      "y",
      "lo",
      "hi",
      "k",
      "st",
      "lab",
      "lc",
      "case",
      "run",
      "mean",
      "median",
      "ci",
      "n",
      "cv",
      "t",
      "t0",
      "t1",
      "txt",
      "v",
      "g",
      "m",
      "b",
      "ch",
      "p",
      "s",
      "q1",
      "q3",
      "quartiles",
      "range",
    ]);
    for (const chart of charts) {
      walk(chart.spec, (key, value) => {
        expect(["expr", "labelExpr", "calculate", "signal", "test", "update", "tooltipExpr"]).not.toContain(
          key,
        );
        if (key === "field") expect(SAFE.has(value as string), `field ${String(value)}`).toBe(true);
        if (key === "filter") expect(typeof value).not.toBe("string");
      });
    }
  });

  it("line terminators in result rows (op, case, target) reach no Vega expression: the report builds and renders", async () => {
    // quickstart sweeps op: its sort order becomes a Vega expression (`indexof([…], datum.c)`).
    const plan = await scenarioPlan("quickstart");
    const rows = synthRows(plan, { reps: 3 }).map((r) => ({
      ...r,
      op: `${r.op}${LS}x` as typeof r.op,
      case: `${r.case}\u2029`,
    }));
    const run = runFromRows("terminators", plan, rows);
    const { html, charts } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(charts.length).toBeGreaterThan(0);
    // The tables show the values as they are (escaped for HTML only).
    expect(html).toContain(`write${LS}x`);
    // The charts show the escape, in their data and in their sort orders alike.
    const chartText = JSON.stringify(charts.map((chart) => chart.spec));
    expect(chartText).toContain("write\\\\u2028x");
    expect(chartText).toContain("\\\\u2029");
    let checked = 0;
    for (const chart of charts) {
      walk(chart.spec, (key, value) => {
        if (key !== "values" && key !== "sort") return;
        walk({ value }, (_, inner) => {
          if (typeof inner !== "string") return;
          checked += 1;
          expect(inner).not.toMatch(/[\n\r\u2028\u2029]/);
        });
      });
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("a Content-Security-Policy without unsafe-eval, with the hash of every script the page runs", async () => {
    const plan = hostilePlan();
    const { html } = await buildReport([runFromRows("r", plan, synthRows(plan))], { version: VERSION });
    const csp = html
      .match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)"/)![1]!
      .replaceAll("&#39;", "'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    const hashes = [...csp.matchAll(/'sha256-([^']+)'/g)].map((m) => m[1]);
    const executable = scriptBlocks(html).filter((b) => !b[0].includes("application/json"));
    expect(executable).toHaveLength(5);
    for (const block of executable)
      expect(hashes).toContain(createHash("sha256").update(block[1]!).digest("base64"));
  });

  it("escapes JSON for a script element, CSV cells, data URIs, and fills templates in one pass", () => {
    expect(jsonForScript({ a: "</script><!--&\u2028\u2029" })).toBe(
      '{"a":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\\u2029"}',
    );
    expect(JSON.parse(jsonForScript({ a: "</script>\u2028" }))).toEqual({ a: "</script>\u2028" });
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell(-3)).toBe("-3");
    expect(dataUri("image/svg+xml", '<svg a="1">#%&</svg>')).toBe(
      "data:image/svg+xml;charset=utf-8,%3Csvg%20a=%221%22%3E%23%25%26%3C/svg%3E",
    );
    expect(fillTemplate("<p>{{a}}</p>{{b}}", { a: "{{b}}", b: "x" })).toBe("<p>{{b}}</p>x");
    expect(() => fillTemplate("{{missing}}", {})).toThrow(/no value for \{\{missing\}\}/);
  });

  it("inlines the vendored libraries as classic scripts, the interpreter without module syntax", async () => {
    const { scripts } = await loadLibraries();
    expect(scripts.map((s) => s.name)).toEqual(["vega", "vega-lite", "vega-embed", "vega-interpreter"]);
    for (const s of scripts) expect(s.source).not.toMatch(/<\/script|<!--/i);
    const interpreter = scripts[3]!.source;
    expect(interpreter).toContain("globalThis.vegaInterpreter = { expressionInterpreter: expression };");
    expect(interpreter).not.toMatch(/^\s*(import|export)\b/m);
    expect(() => interpreterAsScript("export default 1;")).toThrow(/unexpected module layout/);
  });
});
