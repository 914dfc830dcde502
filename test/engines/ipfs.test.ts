/**
 * The IPFS engine through `benchspec run`, against real offline Kubo nodes on loopback: the run's own
 * `launch: kubo` nodes (observed from /proc), or the test's node (launchKubo) as an external `api:` it can
 * inspect. Every test starts what it needs and stops it.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makePayload } from "../../src/engines/load/payload.js";
import type { ResultRow } from "../../src/rows/row.js";
import type { Provenance } from "../../src/results/run-dir.js";
import { runCli } from "../support/cli.js";
import {
  processAlive,
  readJson,
  rowsOf,
  startCli,
  tempDirs,
  watchProcesses,
  writeSpec,
  type Seen,
} from "./support.js";
import { catBytes, localBlocks, recursivePins, withKubo } from "./kubo.js";

const temps = tempDirs("benchspec-ipfs-test-");
afterAll(() => temps.removeAll());

const SIZE = 1_000_000; // 1MB: not a multiple of the 256 KiB chunks
const OBJECTS = 2;

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

function expectExactBytes(rows: ResultRow[], cases: string[], repeat: number) {
  expect(rows.map((r) => `${r.case}#${r.repetition}`).sort()).toEqual(
    cases.flatMap((c) => Array.from({ length: repeat }, (_, i) => `${c}#${i + 1}`)).sort(),
  );
  for (const row of rows) {
    expect({ case: row.case, ok: row.ok, error: row.error, bytes: row.bytes, ops: row.ops }).toEqual({
      case: row.case,
      ok: true,
      error: undefined,
      bytes: OBJECTS * SIZE,
      ops: OBJECTS,
    });
    expect(row.latency?.p50).toBeGreaterThan(0);
    if (row.op === "get") expect(row.ttfb?.p50).toBeGreaterThan(0);
  }
}

describe("IPFS engine on launched nodes", () => {
  it("fresh: per-repetition runs every repetition on a new node with a new repo; fresh: once on one node", async () => {
    const work = await temps.make();
    const spec = await writeSpec(work, {
      name: "fresh",
      targets: {
        fresh: { kind: "ipfs", launch: "kubo", fresh: "per-repetition" },
        once: { kind: "ipfs", launch: "kubo", fresh: "once" },
      },
      workloads: [
        {
          name: "files",
          target: ["fresh", "once"],
          op: ["put", "get"],
          size: "1MB",
          objects: OBJECTS,
          concurrency: 2,
          repeat: 2,
        },
      ],
    });
    const out = join(work, "run");
    const child = startCli(["run", spec, "--out", out]);
    const watch = watchProcesses(child.pid!);
    const result = await child;
    const seen = watch.stop();
    expect(result.stderr).not.toContain("FAILED");
    expect(result.exitCode).toBe(0);
    const rows = rowsOf(out);
    expectExactBytes(rows, ["files.fresh.put", "files.fresh.get", "files.once.put", "files.once.get"], 2);

    // The daemons the run started, each with the repo it held open.
    const daemons = seen.filter((p) => / daemon( |$)/.test(p.cmdline));
    expect(daemons.every((d) => d.repo !== undefined)).toBe(true);
    const provenance = await readJson<Provenance>(join(out, "provenance.json"));
    const reposOf = (target: string) => provenance.targets[target]?.repos ?? [];
    // per-repetition: a new node for each of the 4 repetitions (the launched one serves the first); once: one.
    expect(reposOf("fresh")).toHaveLength(4);
    expect(reposOf("once")).toHaveLength(1);
    expect(new Set([...reposOf("fresh"), ...reposOf("once")]).size).toBe(reposOf("fresh").length + 1);
    expect(daemons.map((d) => d.repo).sort()).toEqual([...reposOf("fresh"), ...reposOf("once")].sort());

    // Which node served each repetition: the target's newest daemon started before it, alive to its end.
    const nodeOf = (row: ResultRow): Seen => {
      const start = Date.parse(row.start);
      const candidates = daemons.filter((d) => reposOf(row.target).includes(d.repo!) && d.firstSeen <= start);
      const node = candidates.sort((a, b) => b.firstSeen - a.firstSeen)[0];
      expect(node, `${row.case}#${row.repetition} ran on a daemon the watcher saw`).toBeDefined();
      expect(node!.lastSeen).toBeGreaterThanOrEqual(Date.parse(row.end) - 50);
      return node!;
    };
    const freshNodes = rows.filter((r) => r.target === "fresh").map((r) => nodeOf(r).pid);
    const onceNodes = rows.filter((r) => r.target === "once").map((r) => nodeOf(r).pid);
    expect(new Set(freshNodes).size).toBe(4);
    expect(new Set(onceNodes).size).toBe(1);

    // Every node is stopped and its repo removed.
    expect(seen.filter((p) => processAlive(p.pid))).toEqual([]);
    for (const repo of [...reposOf("fresh"), ...reposOf("once")]) expect(existsSync(repo), repo).toBe(false);
  }, 90_000);
});

describe("IPFS engine on an external node", () => {
  it("leaves the pin set and the blockstore as they were; a CID pinned before stays pinned", async () => {
    await withKubo(async (node, client) => {
      const planted = (await client.add(Buffer.from("precious"), { pin: true })).cid.toString();
      // Not collected first: the run never garbage-collects an external node, so every block stays
      // (test/engines/ipfs-external.test.ts checks the user's unpinned ones in detail).
      const pinsBefore = await recursivePins(client);
      const blocksBefore = await localBlocks(client);
      expect(pinsBefore).toContain(planted);

      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "external",
        targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
        workloads: [
          { name: "files", op: ["put", "get"], size: "1MB", objects: OBJECTS, concurrency: 2, repeat: 2 },
        ],
      });
      const out = join(work, "run");
      const result = await runCli(["run", spec, "--out", out], { IPFS_API: node.api });
      expect(result.stderr).not.toContain("FAILED");
      expect(result.code).toBe(0);
      expectExactBytes(rowsOf(out), ["files.node.put", "files.node.get"], 2);

      expect(await recursivePins(client)).toEqual(pinsBefore);
      // What the run added was unpinned and removed: not one block more (or less) than before.
      expect(await localBlocks(client)).toEqual(blocksBefore);
      expect((await catBytes(client, planted)).toString()).toBe("precious");
      // An external node is never replaced.
      expect((await readJson<Provenance>(join(out, "provenance.json"))).targets.node).toEqual({
        location: node.api,
      });
    });
  }, 90_000);

  it("keep: true keeps what the run added, pinned, with the bytes of each (run id, seed)", async () => {
    await withKubo(async (node, client) => {
      const pinsBefore = await recursivePins(client);
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "kept",
        targets: { node: { kind: "ipfs", api: "${env:IPFS_API}", keep: true } },
        workloads: [
          {
            name: "up",
            op: "put",
            size: "1MB",
            objects: OBJECTS,
            concurrency: 2,
            repeat: 2,
            cidVersion: 0,
            rawLeaves: false,
          },
          { name: "down", op: "get", size: "1MB", objects: OBJECTS, repeat: 1 },
        ],
      });
      const out = join(work, "run");
      // A process of its own: the payloads it added must be what this process regenerates.
      const result = await startCli(["run", spec, "--out", out], { IPFS_API: node.api });
      expect(result.exitCode).toBe(0);
      const { runId } = await readJson<Provenance>(join(out, "provenance.json"));
      expect(runId).toMatch(/^[A-Za-z0-9._-]{1,64}$/);

      // One pinned add per object and repetition; each one's content is the payload of its seed.
      const expected = [
        ...["r1", "r2"].flatMap((rep) =>
          Array.from({ length: OBJECTS }, (_, i) => `up.node.put/${rep}/o${i}`),
        ),
        ...Array.from({ length: OBJECTS }, (_, i) => `down.node.get/r1/o${i}`),
      ].map((seed) => sha256(makePayload(`${runId}|${seed}`, SIZE, "random").slice(0, SIZE)));
      const pins = (await recursivePins(client)).filter((cid) => !pinsBefore.includes(cid));
      expect(pins).toHaveLength(expected.length);
      // The add options reach the node: CIDv0 (Qm…) for the put case, the default CIDv1 for the get case.
      expect(pins.filter((cid) => cid.startsWith("Qm"))).toHaveLength(2 * OBJECTS);
      const contents = await Promise.all(pins.map((cid) => catBytes(client, cid)));
      expect(contents.map((c) => sha256(c)).sort()).toEqual(expected.sort());
    });
  }, 90_000);
});
