/**
 * Charts rendered in Node (Vega-Lite → Vega → SVG, no canvas needed), so the page reads without
 * JavaScript; and the browser libraries inlined into the page, read from node_modules.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { VlSpec } from "./charts/common.js";
import { inlineScript } from "./escape.js";

const require = createRequire(import.meta.url);

export interface Rendered {
  svg: string;
  warnings: string[];
}

/** A logger that collects Vega/Vega-Lite warnings instead of printing them. */
function collectingLogger(warnings: string[]) {
  let level = vega.Warn;
  const logger = {
    level(value?: number) {
      if (value === undefined) return level;
      level = value;
      return logger;
    },
    error(...args: readonly unknown[]) {
      warnings.push(`error: ${args.map(String).join(" ")}`);
      return logger;
    },
    warn(...args: readonly unknown[]) {
      warnings.push(args.map(String).join(" "));
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  return logger;
}

export async function renderSvg(spec: VlSpec): Promise<Rendered> {
  const warnings: string[] = [];
  const logger = collectingLogger(warnings);
  // No ARIA attributes in the image: an <img> hides its SVG's structure from assistive technology (its alt
  // text is the chart's title), and the labels of every mark made it several times larger.
  const image = { ...spec, config: { ...(spec.config as VlSpec | undefined), aria: false } };
  const compiled = compile(image as unknown as TopLevelSpec, { logger: logger as never }).spec;
  const view = new vega.View(vega.parse(compiled), {
    renderer: "none",
    logger: logger as never,
    logLevel: vega.Warn,
  });
  try {
    const svg = roundGeometry(await view.toSVG());
    return { svg, warnings };
  } finally {
    view.finalize();
  }
}

/** Attributes that hold coordinates alone (text content and labels are never in them). */
const GEOMETRY = /\b(transform|d|x|y|x1|x2|y1|y2|width|height|points)="([^"]*)"/g;
const LONG_DECIMAL = /(-?\d+\.\d)\d+/g;

/**
 * Coordinates to a hundredth of a pixel: Vega writes them to 16 digits (0.8208208208208209), which made a
 * chart of 4,000 points 1.5 MB of image; a hundredth of a pixel is below anything a screen or a print shows.
 */
export function roundGeometry(svg: string): string {
  return svg.replace(
    GEOMETRY,
    (_, name: string, value: string) =>
      `${name}="${value.replace(LONG_DECIMAL, (number: string) => String(Math.round(Number(number) * 100) / 100))}"`,
  );
}

/** The directory holding a package's main file (packages export no subpaths for their browser builds). */
function packageBuildDir(name: string): string {
  return dirname(require.resolve(name));
}

export interface Libraries {
  /** In load order: vega, vega-lite, vega-embed, the CSP-safe expression interpreter. */
  scripts: { name: string; source: string }[];
  versions: Record<string, string>;
}

let cached: Promise<Libraries> | undefined;

export function loadLibraries(): Promise<Libraries> {
  cached ??= readLibraries();
  return cached;
}

async function readLibraries(): Promise<Libraries> {
  const read = (name: string, file: string) => readFile(join(packageBuildDir(name), file), "utf8");
  const version = async (name: string) => {
    const pkg = JSON.parse(await readFile(join(packageBuildDir(name), "..", "package.json"), "utf8")) as {
      version: string;
    };
    return pkg.version;
  };
  const [vegaJs, vegaLiteJs, embedJs, interpreterJs] = await Promise.all([
    read("vega", "vega.min.js"),
    read("vega-lite", "vega-lite.min.js"),
    read("vega-embed", "vega-embed.min.js"),
    read("vega-interpreter", "vega-interpreter.js"),
  ]);
  const versions = Object.fromEntries(
    await Promise.all(
      ["vega", "vega-lite", "vega-embed", "vega-interpreter"].map(
        async (name) => [name, await version(name)] as const,
      ),
    ),
  );
  return {
    scripts: [
      { name: "vega", source: inlineScript("vega", stripSourceMap(vegaJs)) },
      { name: "vega-lite", source: inlineScript("vega-lite", stripSourceMap(vegaLiteJs)) },
      { name: "vega-embed", source: inlineScript("vega-embed", stripSourceMap(embedJs)) },
      {
        name: "vega-interpreter",
        source: inlineScript("vega-interpreter", interpreterAsScript(interpreterJs)),
      },
    ],
    versions,
  };
}

const stripSourceMap = (source: string) => source.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");

/**
 * vega-interpreter ships only as an ES module importing from vega-util, whose functions the vega
 * bundle exposes on its global. As a classic script: the import becomes a read of those globals, the
 * export an assignment to `vegaInterpreter`. Anything else in the file's module syntax is refused.
 */
export function interpreterAsScript(source: string): string {
  const importLine = /^import\s*\{([^}]*)\}\s*from\s*'vega-util';?$/m;
  const exportLine = /^export\s*\{\s*expression\s+as\s+expressionInterpreter\s*\};?$/m;
  const imports = importLine.exec(source);
  if (!imports || !exportLine.test(source))
    throw new Error("vega-interpreter: unexpected module layout; cannot inline it");
  const names = imports[1]!
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  if (!names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)))
    throw new Error("vega-interpreter: unexpected import list");
  const body = stripSourceMap(source)
    .replace(importLine, `const { ${names.join(", ")} } = globalThis.vega;`)
    .replace(exportLine, "globalThis.vegaInterpreter = { expressionInterpreter: expression };");
  if (/^\s*(import|export)\b/m.test(body))
    throw new Error("vega-interpreter: module syntax left after conversion");
  return `(function () {\n${body}\n})();\n`;
}
