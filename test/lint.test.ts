/** The lint rule that keeps engine and target-kind knowledge in the engines' and target kinds' folders (eslint.config.js). */
import { ESLint } from "eslint";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ENGINE_NAMES } from "../src/engines/index.js";
import { HostGroupSchema, TARGET_KINDS } from "../src/spec/schema.js";

const root = join(import.meta.dirname, "..");
const execFileAsync = promisify(execFile);
const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, "eslint.config.js") });

const BRANCHES = `export function f(c: { engine: string }) {
  if (c.engine === "fio") return 1;
  if ("block" != c.engine) return 2;
  switch (c.engine) {
    case "s3":
      return 3;
  }
  return 0;
}
`;

async function nameBranchLines(filePath: string): Promise<number[]> {
  const [result] = await eslint.lintText(BRANCHES, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.line);
}

describe("no branching on engine or target-kind names", () => {
  it("fails comparisons and case labels naming an engine or a kind in shared code", async () => {
    expect(await nameBranchLines("src/report/x.ts")).toEqual([2, 3, 5]);
    expect(await nameBranchLines("src/engines/load/x.ts")).toEqual([2, 3, 5]);
  });

  it("allows them in the engines' and target kinds' folders and the registries", async () => {
    expect(await nameBranchLines("src/engines/fio/x.ts")).toEqual([]);
    expect(await nameBranchLines("src/targets/block/x.ts")).toEqual([]);
    expect(await nameBranchLines("src/targets/index.ts")).toEqual([]);
  });

  it("knows every engine and target kind", async () => {
    const config = (await import(pathToFileURL(join(root, "eslint.config.js")).href)) as {
      ENGINE_NAMES: string[];
      TARGET_KINDS: string[];
      TRANSPORTS: string[];
    };
    expect(config.ENGINE_NAMES).toEqual([...ENGINE_NAMES]);
    expect(config.TARGET_KINDS).toEqual([...TARGET_KINDS]);
    expect(config.TRANSPORTS).toEqual(HostGroupSchema.options.map((option) => option.shape.transport.value));
  });
});

describe("folders in layers (scripts/check-layers.mjs, run in CI)", () => {
  const check = (src: string) =>
    execFileAsync(process.execPath, [join(root, "scripts", "check-layers.mjs"), src]).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it("passes src/ as it is", async () => {
    expect(await check(join(root, "src"))).toEqual({ code: 0, stderr: "" });
  });

  it("fails an import that points up a layer, a type-only one too, and a folder in no layer", async () => {
    const src = await mkdtemp(join(tmpdir(), "benchspec-layers-"));
    try {
      await mkdir(join(src, "spec"));
      await mkdir(join(src, "report"));
      await writeFile(
        join(src, "report", "a.ts"),
        'import { b } from "../spec/b.js";\nexport const a = b;\n',
      );
      await writeFile(join(src, "spec", "b.ts"), "export const b = 1;\n");
      expect(await check(src)).toMatchObject({ code: 0 });
      await writeFile(
        join(src, "spec", "c.ts"),
        'import type { A } from "../report/a.js";\nexport type C = A;\n',
      );
      await writeFile(join(src, "spec", "e.ts"), 'export { a } from "../report/a.js";\n');
      await mkdir(join(src, "misc"));
      await writeFile(join(src, "misc", "d.ts"), "export const d = 1;\n");
      const result = await check(src);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("spec/c.ts imports report/a.js: spec may not import report");
      expect(result.stderr).toContain("spec/e.ts imports report/a.js: spec may not import report");
      expect(result.stderr).toContain('misc/d.ts: folder "misc" is in no layer');
    } finally {
      await rm(src, { recursive: true, force: true });
    }
  });
});
