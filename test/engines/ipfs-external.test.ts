/**
 * Cleanup on an external Kubo node (`api:`) never destroys the user's data: the node holds blocks of the
 * user's own — pinned, unpinned, an earlier `keep: true` run's unpinned ones, and a pinned zero file with
 * the very CID a `data: zero` workload adds — and afterwards exactly those are there again (pins included),
 * while not one block of the run is. `repo gc` (the old cleanup) fails this: it
 * collects every unpinned block of the node. Both `benchspec run` and the compiled shell script.
 */
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { execa } from "execa";
import type { KuboRPCClient } from "kubo-rpc-client";
import { afterAll, describe, expect, it } from "vitest";
import { makePayload } from "../../src/engines/load/payload.js";
import { KuboRpc } from "../../src/engines/ipfs/rpc.js";
import { plannedAdds, removeUnfinished } from "../../src/engines/ipfs/unfinished.js";
import { addDirectoryBlock } from "../../src/targets/ipfs/add-directory.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { targetEnvVar } from "../../src/emit/shell-words.js";
import type { ResultRow } from "../../src/rows/row.js";
import type { Provenance } from "../../src/results/run-dir.js";
import { kuboBinary } from "../../src/platform/tools.js";
import { launchKubo } from "../../src/targets/ipfs/kubo-server.js";
import { runCli } from "../support/cli.js";
import { catBytes, localBlocks, recursivePins, withKubo } from "./kubo.js";
import { readJson, rowsOf, interruptAfter, startCli, tempDirs, waitFor, writeSpec } from "./support.js";
import { readRows } from "../../src/results/ndjson.js";
import type { RecordedLeftover } from "../../src/results/run-dir.js";

const readLeftoverLines = (file: string) => readRows<RecordedLeftover>(file);

const temps = tempDirs("benchspec-ipfs-external-");
afterAll(() => temps.removeAll());

const SIZE = 1_000_000;
const OBJECTS = 2;
const REPEAT = 2;
/** The options every workload below adds with (the engine's defaults, spelled out for the user's copies). */
const ADD = { cidVersion: 1, rawLeaves: true, chunker: "size-262144" } as const;

/** The block is in the node's own blockstore (offline: never fetched from elsewhere). */
const hasBlock = (client: KuboRPCClient, cid: string) =>
  client.block
    .stat(cid as never, { searchParams: new URLSearchParams({ offline: "true" }) })
    .then(() => true)
    .catch(() => false);

interface UserData {
  unpinnedBlock: string;
  unpinnedFile: { cid: string; bytes: Buffer };
  pinnedFile: { cid: string; bytes: Buffer };
  /** The zero file a `data: zero` workload adds, pinned by the user before the run. */
  pinnedZeros: string;
}

/** What the user keeps on their node: a raw unpinned block, an unpinned and a pinned file, pinned zeros. */
async function plantUserData(client: KuboRPCClient): Promise<UserData> {
  const unpinnedBlock = (
    await client.block.put(Buffer.from(`the user's own block ${randomBytes(8).toString("hex")}`))
  ).toString();
  const loose = randomBytes(700_000);
  const kept = randomBytes(700_000);
  const unpinnedFile = (await client.add(loose, { ...ADD, pin: false })).cid.toString();
  const pinnedFile = (await client.add(kept, { ...ADD, pin: true })).cid.toString();
  const pinnedZeros = (await client.add(Buffer.alloc(SIZE), { ...ADD, pin: true })).cid.toString();
  return {
    unpinnedBlock,
    unpinnedFile: { cid: unpinnedFile, bytes: loose },
    pinnedFile: { cid: pinnedFile, bytes: kept },
    pinnedZeros,
  };
}

async function expectUserDataIntact(client: KuboRPCClient, user: UserData) {
  expect(await hasBlock(client, user.unpinnedBlock), "the user's unpinned block").toBe(true);
  expect((await catBytes(client, user.unpinnedFile.cid)).equals(user.unpinnedFile.bytes)).toBe(true);
  expect((await catBytes(client, user.pinnedFile.cid)).equals(user.pinnedFile.bytes)).toBe(true);
  expect((await catBytes(client, user.pinnedZeros)).equals(Buffer.alloc(SIZE))).toBe(true);
  expect(await recursivePins(client)).toEqual(
    expect.arrayContaining([user.pinnedFile.cid, user.pinnedZeros]),
  );
}

/** Unpinned and pinned adds, each measured (put) and as the content of a get; zeros the user has pinned. */
const WORKLOADS = [
  { name: "loose", op: ["put", "get"], pin: false },
  { name: "pinned", op: ["put", "get"], pin: true },
  { name: "zeros", op: "put", pin: true, data: "zero" },
].map((w) => ({ ...w, size: "1MB", objects: OBJECTS, concurrency: 2, repeat: REPEAT, ...ADD }));
const CASES = ["loose.node.put", "loose.node.get", "pinned.node.put", "pinned.node.get", "zeros.node.put"];

function expectAllOk(rows: ResultRow[]) {
  expect(rows.map((r) => `${r.case}#${r.repetition}`).sort()).toEqual(
    CASES.flatMap((c) => Array.from({ length: REPEAT }, (_, i) => `${c}#${i + 1}`)).sort(),
  );
  for (const row of rows) {
    expect({ case: row.case, ok: row.ok, error: row.error, bytes: row.bytes }).toEqual({
      case: row.case,
      ok: true,
      error: undefined,
      bytes: OBJECTS * SIZE,
    });
  }
}

/** The workloads below against the node at $IPFS_API, as a user's external target. */
const externalSpec = (dir: string) =>
  writeSpec(dir, {
    name: "external",
    targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
    workloads: WORKLOADS,
  });

describe("IPFS cleanup on an external node", () => {
  it("benchspec run removes exactly the run's blocks: the user's pinned and unpinned blocks and a kept run's stay", async () => {
    await withKubo(async (node, client) => {
      const user = await plantUserData(client);
      const work = await temps.make();

      // An earlier run that kept what it added, unpinned: the user's data now, as much as anything else.
      const keptSpec = await writeSpec(work, {
        name: "kept",
        targets: { node: { kind: "ipfs", api: "${env:IPFS_API}", keep: true } },
        workloads: [{ name: "kept", op: "put", size: "1MB", objects: 1, pin: false, repeat: 1 }],
      });
      const beforeKept = await localBlocks(client);
      const kept = await runCli(["run", keptSpec, "--out", join(work, "kept")], { IPFS_API: node.api });
      expect(kept.code, kept.stderr).toBe(0);
      const keptBlocks = (await localBlocks(client)).filter((cid) => !beforeKept.includes(cid));
      expect(keptBlocks.length).toBeGreaterThan(1);

      const blocksBefore = await localBlocks(client);
      const pinsBefore = await recursivePins(client);
      const dir = await temps.make();
      const spec = await externalSpec(dir);
      const out = join(dir, "run");
      const result = await runCli(["run", spec, "--out", out], { IPFS_API: node.api });
      expect(result.stderr).not.toContain("FAILED");
      expect(result.code).toBe(0);
      const rows = rowsOf(out);
      expectAllOk(rows);

      // Every root the run added (regenerated from its run id and seeds) existed only during the run.
      const { runId } = await readJson<Provenance>(join(out, "provenance.json"));
      const runRoots = await Promise.all(
        rows
          .filter((row) => row.params.data === "random")
          .flatMap((row) => Array.from({ length: OBJECTS }, (_, i) => `${row.case}/r${row.repetition}/o${i}`))
          .map(async (seed) => {
            const bytes = makePayload(`${runId}|${seed}`, SIZE, "random").slice(0, SIZE);
            return (await client.add(bytes, { ...ADD, onlyHash: true })).cid.toString();
          }),
      );
      expect(new Set(runRoots).size).toBe(4 * REPEAT * OBJECTS);

      const blocksAfter = await localBlocks(client);
      for (const cid of runRoots) {
        expect(blocksBefore, cid).not.toContain(cid);
        expect(blocksAfter, cid).not.toContain(cid);
      }
      // Nothing of the user's is gone, and nothing of the run's is left.
      expect(blocksAfter).toEqual(blocksBefore);
      expect(await recursivePins(client)).toEqual(pinsBefore);
      await expectUserDataIntact(client, user);
      for (const cid of keptBlocks) expect(await hasBlock(client, cid), `kept run's ${cid}`).toBe(true);
    });
  }, 120_000);

  it("the compiled shell script, too: ipfs refs -r, pin rm, block rm — never repo gc", async () => {
    await withKubo(async (node, client) => {
      const user = await plantUserData(client);
      const blocksBefore = await localBlocks(client);
      const pinsBefore = await recursivePins(client);

      const dir = await temps.make();
      const spec = await externalSpec(dir);
      const compiled = join(dir, "compiled");
      const compile = await runCli(["compile", spec, "--target", "shell", "--out", compiled]);
      expect(compile.code, compile.stderr).toBe(0);
      const script = join(compiled, SHELL_SCRIPT_PATH);
      const scratch = await temps.make();
      const run = await execa(script, [], {
        env: {
          PATH: `${dirname(kuboBinary())}:${process.env.PATH}`,
          TMPDIR: scratch,
          [targetEnvVar("node")]: node.api,
          BENCHSPEC_RUN_ID: "external-shell",
        },
        reject: false,
        timeout: 240_000,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toContain("block rm");
      expect(run.stderr).not.toContain("could not");
      const rows = run.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ResultRow);
      expectAllOk(rows);

      expect(await localBlocks(client)).toEqual(blocksBefore);
      expect(await recursivePins(client)).toEqual(pinsBefore);
      await expectUserDataIntact(client, user);
    });
  }, 300_000);
});

describe("what an add that never returned stored", () => {
  it("is computed exactly as Kubo stored it: every leaf, and each filled inner node of a cut-off add", async () => {
    await withKubo(async (node, client) => {
      const user = await plantUserData(client);
      const blocksBefore = await localBlocks(client);
      // 200 leaves of 256 KiB: two inner nodes under the root, the first of them full (174 leaves).
      const planned = {
        runId: "cut",
        seed: "w1/o{i}",
        from: 0,
        count: 1,
        pass: 0,
        size: 200 * 2 ** 18,
        pin: false,
        data: "random" as const,
        ...ADD,
      };
      const [add] = plannedAdds(planned);
      const rpc = new KuboRpc(node.api);
      try {
        const stored = await rpc.add(add!.payload, add!.options, AbortSignal.timeout(60_000));
        const dag = (await localBlocks(client)).filter((cid) => !blocksBefore.includes(cid));
        // the root, 2 inner nodes, 200 leaves and the directory block Kubo's add leaves besides
        expect(dag).toHaveLength(204);
        // The add "never returned" after its first inner node: the root, the second inner node (and the
        // directory block) never made it to the node.
        const children: string[] = [];
        for await (const ref of client.refs(stored.cid as never, {
          searchParams: new URLSearchParams({ offline: "true" }),
        }))
          children.push(ref.ref);
        const cutOff = [stored.cid, children[1]!, addDirectoryBlock(stored.cid, stored.size)];
        const remove = async (cids: string[]) => {
          for await (const removed of client.block.rm(cids as never, { force: true })) void removed;
        };
        await remove(cutOff);
        const problems: string[] = [];
        const look = (relook = false) =>
          removeUnfinished(client, rpc, [add!], AbortSignal.timeout(60_000), problems, relook);
        expect(await look()).toEqual({ found: [add], unknown: 0 });
        expect(problems).toEqual([]);
        expect(await localBlocks(client)).toEqual(blocksBefore);
        // Nothing stored: nothing found.
        expect(await look()).toEqual({ found: [], unknown: 0 });
        expect(await look(true)).toEqual({ found: [], unknown: 0 });

        // Blocks Kubo commits late, after the first look removed the first leaf: a plain look sees the
        // first leaf absent and passes on; a relook finds every leaf and the filled inner node.
        await rpc.add(add!.payload, add!.options, AbortSignal.timeout(60_000));
        const leaves: string[] = [];
        for await (const ref of client.refs(children[0]! as never, {
          searchParams: new URLSearchParams({ offline: "true" }),
        }))
          leaves.push(ref.ref);
        await remove([...cutOff, leaves[0]!]);
        expect(await look()).toEqual({ found: [], unknown: 0 });
        expect(await look(true)).toEqual({ found: [add], unknown: 0 });
        expect(problems).toEqual([]);
        expect(await localBlocks(client)).toEqual(blocksBefore);
        await expectUserDataIntact(client, user);
      } finally {
        rpc.destroy();
      }
    });
  }, 120_000);
});

describe("a run killed on an external node", () => {
  it("records each root it adds, and clean removes their pins and blocks; the user's data stays", async () => {
    await withKubo(async (node, client) => {
      const user = await plantUserData(client);
      const blocksBefore = await localBlocks(client);
      const pinsBefore = await recursivePins(client);
      const dir = await temps.make();
      const spec = await writeSpec(dir, {
        name: "killed",
        targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
        // 16 leaves per object: the adds in flight at the kill are cut off midway, or finished unrecorded.
        workloads: [
          { name: "many", op: "put", size: "4MiB", objects: 400, concurrency: 2, pin: true, ...ADD },
        ],
      });
      const out = join(dir, "run");
      const running = startCli(["run", spec, "--out", out], { IPFS_API: node.api });
      const recorded = () =>
        readLeftoverLines(join(out, "leftovers.ndjson")).flatMap((l) => (l.kind === "cids" ? l.added : []));
      await waitFor(() => recorded().length >= 10, 60_000, "10 adds recorded");
      running.kill("SIGKILL");
      await running;
      const added = recorded().map((a) => a.cid);
      const extraPins = (await recursivePins(client)).filter((cid) => !pinsBefore.includes(cid));
      expect(extraPins.length).toBeGreaterThanOrEqual(10);

      const cleaned = await runCli(["clean", out], { IPFS_API: node.api });
      expect(cleaned.code, cleaned.stderr).toBe(0);
      expect(cleaned.stdout).toMatch(/removed what \d+ adds stored on the IPFS node of target node/);
      for (const cid of added) expect(await hasBlock(client, cid), cid).toBe(false);
      // The adds in flight at the kill too, unrecorded: their seeds were (clean computes their blocks).
      expect(await recursivePins(client)).toEqual(pinsBefore);
      expect(await localBlocks(client)).toEqual(blocksBefore);
      await expectUserDataIntact(client, user);
      for (const cid of blocksBefore) expect(await hasBlock(client, cid), cid).toBe(true);
    });
  }, 120_000);
});

describe("Ctrl-C on an external node", () => {
  /** A run of 64 MiB adds (256 leaves, a full inner node once 174 are in), interrupted at its first root. */
  async function interruptAdds(node: { api: string }, env: Record<string, string> = {}) {
    const dir = await temps.make();
    const spec = await writeSpec(dir, {
      name: "cut",
      targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
      workloads: [{ name: "big", op: "put", size: "64MiB", objects: 50, concurrency: 2, ...ADD }],
    });
    const out = join(dir, "run");
    const running = startCli(["run", spec, "--out", out], { IPFS_API: node.api, ...env });
    await waitFor(
      () => readLeftoverLines(join(out, "leftovers.ndjson")).some((l) => l.kind === "cids"),
      60_000,
      "an add recorded",
    );
    running.kill("SIGINT");
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(130);
    return { stderr: result.stderr, out };
  }

  it("lets the adds in flight end, then removes them whole", async () => {
    await withKubo(async (node, client) => {
      const blocksBefore = await localBlocks(client);
      const { stderr } = await interruptAdds(node);
      // An add that returned has committed every block: nothing is cut off, nothing committed late.
      expect(stderr).not.toMatch(/cleanup|cut off by Ctrl-C/);
      expect(await localBlocks(client)).toEqual(blocksBefore);
    });
  }, 120_000);

  it("removes what the adds it cut off stored, computed from their seeds, or says what clean removes", async () => {
    await withKubo(async (node, client) => {
      const blocksBefore = await localBlocks(client);
      // No time to end: the adds in flight are cut off, and Kubo may commit their blocks after that.
      const { stderr, out } = await interruptAdds(node, { BENCHSPEC_ADD_GRACE_MS: "0" });
      const cutOff = readLeftoverLines(join(out, "leftovers.ndjson")).filter(
        (l) => l.kind === "engine" && (l.record as { cutOff?: boolean }).cutOff,
      );
      expect(cutOff.length, "each add cut off on record").toBeGreaterThanOrEqual(1);
      // The looks themselves never fail: running out of time is the only thing the run may have to say.
      for (const line of stderr.split("\n").filter((l) => /cleanup .*failed/.test(l)))
        expect(line).toMatch(/may still have been storing blocks/);
      if (/cut off by Ctrl-C/.test(stderr)) {
        // The looks ran out of time (a loaded machine): said, and clean finishes the job.
        expect(stderr).toMatch(
          /may still have been storing blocks of .* cut off by Ctrl-C when the run's clean-up time ran out .*`benchspec clean` of this run removes them/,
        );
        const cleaned = await runCli(["clean", out], { IPFS_API: node.api });
        expect(cleaned.code, cleaned.stderr).toBe(0);
      }
      expect(await localBlocks(client)).toEqual(blocksBefore);
    });
  }, 120_000);
});

describe("an external node that is frozen", () => {
  it("is given up on once, after the setup limit, naming it; Ctrl-C while it is checked ends the run at once", async () => {
    await withKubo(async (node) => {
      const dir = await temps.make();
      const spec = await writeSpec(dir, {
        name: "frozen",
        targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
        workloads: [
          { name: "first", op: "put", size: "1MB", objects: 1 },
          { name: "second", op: "put", size: "2MB", objects: 1 },
        ],
      });
      process.kill(-node.pid, "SIGSTOP");
      try {
        const started = Date.now();
        const result = await startCli(["run", spec, "--out", join(dir, "run")], {
          IPFS_API: node.api,
          BENCHSPEC_SETUP_CHECK_MS: "2000",
        });
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(result.exitCode).toBe(1);
        const rows = rowsOf(join(dir, "run"));
        expect(rows.map((r) => r.ok)).toEqual([false, false]);
        expect(rows[0]!.error).toMatch(/IPFS API at .*: no answer within 2 s/);
        expect(rows[1]!.error).toMatch(/not tried again/);

        const { ended, tookMs } = await interruptAfter(
          startCli(["run", spec, "--out", join(dir, "run2")], { IPFS_API: node.api }),
          join(dir, "run2"),
          500,
        );
        expect(tookMs).toBeLessThan(5_000);
        expect(ended.exitCode, ended.stderr).toBe(130);
      } finally {
        process.kill(-node.pid, "SIGCONT");
      }
    });
  }, 90_000);
});

describe("an external node that is not there", () => {
  it("says connection refused at its API and to start the daemon, not fetch failed", async () => {
    const node = await launchKubo();
    await node.stop();
    const work = await temps.make();
    const spec = await writeSpec(work, {
      name: "gone",
      targets: { node: { kind: "ipfs", api: "${env:IPFS_API}" } },
      workloads: [{ name: "w", op: "put", size: "1KB", objects: 1, repeat: 1 }],
    });
    const result = await runCli(["run", spec, "--out", join(work, "run")], { IPFS_API: node.api });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `target "node": IPFS API at ${node.api}: connection refused; start the daemon (ipfs daemon) or check "api"`,
    );
    expect(result.stderr).not.toContain("fetch failed");
  });
});
