/** The lint rule that keeps engine and target-kind knowledge in the backends (eslint.config.js). */
import { ESLint } from "eslint";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ENGINE_NAMES } from "../src/spec/words.js";
import { HostGroupSchema, TARGET_KINDS } from "../src/spec/schema.js";

const root = join(import.meta.dirname, "..");
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

  it("allows them in the backends' folders and the registries", async () => {
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
