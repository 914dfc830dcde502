/** Provenance tells a spec that was never committed from one modified since the commit. */
import { execa } from "execa";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitInfo } from "../../src/run/provenance.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe("the spec's git state", () => {
  it("is clean when committed, modified when changed since, untracked when never committed", async () => {
    const repo = await mkdtemp(join(tmpdir(), "benchspec-git-"));
    dirs.push(repo);
    const git = (...args: string[]) =>
      execa("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    await git("init", "-q");
    await writeFile(join(repo, "committed.yaml"), "a\n");
    await git("add", "committed.yaml");
    await git("commit", "-q", "-m", "spec");
    await writeFile(join(repo, "new.yaml"), "b\n");
    const commit = (await git("rev-parse", "HEAD")).stdout.trim();

    expect(await gitInfo(join(repo, "committed.yaml"))).toEqual({ commit, dirty: false });
    expect(await gitInfo(join(repo, "new.yaml"))).toEqual({ commit, dirty: false, untracked: true });
    await writeFile(join(repo, "committed.yaml"), "changed\n");
    expect(await gitInfo(join(repo, "committed.yaml"))).toEqual({ commit, dirty: true });
  });
});
