import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  KUBO_VERSION,
  MINIO_VERSION,
  ToolNotFoundError,
  kuboBinary,
  minioBinary,
  toolVersion,
  toolsDir,
} from "../../src/platform/tools.js";

describe("toolsDir", () => {
  it("follows the setup script: BENCHSPEC_TOOLS_DIR, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(toolsDir({ BENCHSPEC_TOOLS_DIR: "/t", XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/t");
    expect(toolsDir({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/x/benchspec/tools");
    expect(toolsDir({ HOME: "/h" })).toBe("/h/.cache/benchspec/tools");
  });
});

describe("tool versions", () => {
  it("match the versions the setup script builds", async () => {
    const script = await readFile(new URL("../../scripts/setup-tools.sh", import.meta.url), "utf8");
    expect(script).toContain(`KUBO_VERSION="${KUBO_VERSION}"`);
    expect(script).toContain(`MINIO_VERSION="${MINIO_VERSION}"`);
  });

  it("finds the cached builds and reads their versions", async () => {
    expect(kuboBinary()).toBe(path.join(toolsDir(), `kubo-${KUBO_VERSION}`, "ipfs"));
    expect(minioBinary()).toBe(path.join(toolsDir(), `minio-${MINIO_VERSION}`, "minio"));
    expect(await toolVersion("kubo")).toBe(`ipfs version ${KUBO_VERSION.slice(1)}`);
    expect(await toolVersion("minio")).toBe(`minio ${MINIO_VERSION}`);
    expect(await toolVersion("fio")).toMatch(/^fio-\d+\.\d+/);
  });
});

describe("a missing tool", () => {
  it("raises ToolNotFoundError telling the user to run npm run setup", async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), "benchspec-tools-"));
    try {
      const env = { BENCHSPEC_TOOLS_DIR: empty, PATH: empty };
      expect(() => kuboBinary(env)).toThrow(ToolNotFoundError);
      expect(() => minioBinary(env)).toThrow(/npm run setup/);
      try {
        kuboBinary(env);
      } catch (error) {
        expect((error as ToolNotFoundError).searched).toEqual([
          path.join(empty, `kubo-${KUBO_VERSION}`, "ipfs"),
          path.join(empty, "ipfs"),
        ]);
      }
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("falls back to PATH", async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), "benchspec-tools-"));
    try {
      expect(kuboBinary({ BENCHSPEC_TOOLS_DIR: empty, PATH: path.dirname(kuboBinary()) })).toBe(kuboBinary());
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
