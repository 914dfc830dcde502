import { execa } from "execa";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateText } from "../../src/engines/language.js";
import { runCli } from "../support/cli.js";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-cli-");

describe("benchspec CLI", () => {
  it("validate: exit 0 and a summary for valid specs", async () => {
    const result = await runCli(["validate", "specs/quickstart.yaml", "specs/shared-storage-dd.yaml"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("specs/quickstart.yaml: valid — 6 cases");
    expect(result.stdout).toContain("specs/shared-storage-dd.yaml: valid — 15 cases");
  });

  it("validate: exit 2 with every problem as file:line:col path: message [code]", async () => {
    const dir = await tempDir();
    const file = join(dir, "bad.yaml");
    await writeFile(
      file,
      "benchspec: 1\nname: bad\ntargets:\n  t: { kind: fs }\nworkloads:\n  - name: w\n    op: read\n    iodeph: 4\n    bs: 4K\n",
    );
    const result = await runCli(["validate", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:8:5 workloads[0].iodeph: error: unknown key "iodeph" — did you mean "iodepth"? [unknown-key]`,
    );
    expect(result.stderr).toContain(`${file}:9:9 workloads[0].bs: error:`);
    expect(result.stderr).toContain("2 errors, 0 warnings");
    expect(result.stdout).toBe("");
  });

  it("validate: a missing file is a diagnostic, not a crash", async () => {
    const result = await runCli(["validate", "no/such.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^no\/such\.yaml: error: cannot read spec: no such file \[file-not-found\]/,
    );
  });

  it("plan: prints the case table and the counts; --json prints the plan", async () => {
    const table = await runCli(["plan", "specs/quickstart.yaml"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^#\s+case\s+engine\s+op\s+parameters\s+reps$/m);
    expect(table.stdout).toMatch(
      /^1\s+dd-seq\.scratch\.write\.parallel-1\s+dd\s+write\s+bs=1MiB count=16 parallel=1\s+3$/m,
    );
    expect(table.stdout).toContain("quickstart: 6 cases, 18 repetitions");
    const json = await runCli(["plan", "specs/cloud-disk-pts.yaml", "--json"]);
    expect(JSON.parse(json.stdout).cases).toHaveLength(156);
  });

  it("plan --set: overrides are validated like the spec", async () => {
    const ok = await runCli([
      "plan",
      "specs/shared-storage-dd.yaml",
      "--set",
      "parallel=[2]",
      "--set",
      "count=4",
    ]);
    expect(ok.stdout).toContain("shared-storage-dd: 5 cases");
    const bad = await runCli(["plan", "specs/shared-storage-dd.yaml", "--set", "count=-4"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("(value given with --set)");
  });

  it("usage errors exit 2 with a suggestion; help exits 0 with examples on every command", async () => {
    const typo = await runCli(["valdate", "x.yaml"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Did you mean validate\?/);
    for (const command of ["validate", "plan", "schema", "init"]) {
      const help = await runCli([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Examples:");
    }
    expect((await runCli(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("init: writes a starter spec that validates and points at the schema; never overwrites", async () => {
    const dir = await tempDir();
    const file = join(dir, "sub.yaml");
    expect((await runCli(["init", file])).code).toBe(0);
    const text = await readFile(file, "utf8");
    const schemaLine = /^# yaml-language-server: \$schema=(.+)$/m.exec(text);
    expect(schemaLine).not.toBeNull();
    expect(await readFile(join(dir, schemaLine![1]!), "utf8")).toContain('"$schema"');
    expect(validateText(file, text).diagnostics).toEqual([]);
    const again = await runCli(["init", file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists; use --force");
  });

  it("schema: writes the committed schema file", async () => {
    const dir = await tempDir();
    const out = join(dir, "s.json");
    expect((await runCli(["schema", "-o", out])).code).toBe(0);
    expect(await readFile(out, "utf8")).toBe(
      await readFile(join(ROOT, "schema/benchspec.schema.json"), "utf8"),
    );
  });

  it("the installed binary runs (bin/benchspec.js → dist)", async () => {
    const result = await execa(
      "node",
      [join(ROOT, "bin/benchspec.js"), "validate", "specs/quickstart.yaml"],
      {
        cwd: ROOT,
        reject: false,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("valid — 6 cases");
  });
});
