import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadInputs } from "../../src/report/load.js";
import {
  findRunState,
  readRunState,
  RUN_FORMAT,
  runPaths,
  startRunFiles,
  writeRunJson,
  type RunState,
} from "../../src/results/run-dir.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-run-dir-"));
  dirs.push(dir);
  return dir;
};

const STATE: RunState = {
  format: RUN_FORMAT,
  status: "complete",
  runId: "r",
  specFile: "/s.yaml",
  specHash: "h",
  sets: [],
  start: "2026-01-01T00:00:00.000Z",
};

describe("the run directory", () => {
  it("writes run.json and reads it back; a new run starts with its spec, empty row files and raw/", async () => {
    const dir = await tempDir();
    await startRunFiles(dir, "name: x\n");
    await writeRunJson(dir, "state", STATE);
    const paths = runPaths(dir);
    expect(await readFile(paths.spec, "utf8")).toBe("name: x\n");
    expect(await readFile(paths.results, "utf8")).toBe("");
    expect(await readFile(paths.timeseries, "utf8")).toBe("");
    expect(await readRunState(dir)).toEqual(STATE);
  });

  it("is no run directory without a run.json, or with one of another format; a newer one says so", async () => {
    const dir = await tempDir();
    expect(await findRunState(dir)).toBeUndefined();
    await expect(readRunState(dir)).rejects.toThrow(`${dir} is not a benchspec run directory (no run.json)`);
    const file = runPaths(dir).state;
    await writeFile(file, "{");
    await expect(findRunState(dir)).rejects.toThrow(
      `${dir} is not a benchspec run directory (${file} is not JSON`,
    );
    await writeFile(file, JSON.stringify({ ...STATE, format: "other/1" }));
    await expect(findRunState(dir)).rejects.toMatchObject({ code: "invalid-input" });
    await expect(findRunState(dir)).rejects.toThrow(`${file} has format "other/1", not ${RUN_FORMAT}`);
    await writeFile(file, JSON.stringify({ ...STATE, format: "benchspec-run/2" }));
    await expect(findRunState(dir)).rejects.toThrow(
      `${file} was written by a newer benchspec (format benchspec-run/2; this version reads ${RUN_FORMAT})`,
    );
  });

  it("a report of a run directory whose run.json is not a benchspec run's names the file", async () => {
    const dir = await tempDir();
    await startRunFiles(dir, "");
    await writeFile(runPaths(dir).state, JSON.stringify({ ...STATE, format: "benchspec-run/9" }));
    await expect(loadInputs([dir])).rejects.toThrow(
      `${runPaths(dir).state} was written by a newer benchspec`,
    );
  });
});
