/**
 * A benchspec run that is SIGKILLed: nothing it started outlives it (a watchdog kills the process groups),
 * and `benchspec clean` / `--resume` remove what it left outside the run directory — and nothing else.
 */
import { CreateBucketCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { launchMinio } from "../../src/targets/s3/minio-server.js";
import {
  externalS3Target,
  listObjects,
  listProcesses,
  processAlive,
  rowsOf,
  s3Client,
  s3Env,
  sleep,
  startCli,
  tempDirs,
  waitFor,
  watchProcesses,
  writeSpec,
} from "../engines/support.js";

const temps = tempDirs("benchspec-leftovers-");
afterAll(() => temps.removeAll());

/** A scratch directory with a file of the user's in it, which no clean-up may touch. */
async function scratch(work: string) {
  const dir = join(work, "target");
  await mkdir(dir);
  await writeFile(join(dir, "planted.txt"), "precious");
  return dir;
}

describe("a run killed with SIGKILL", () => {
  it("takes its launched MinIO along; clean removes its target directory, the server's data and its keys", async () => {
    const store = await launchMinio();
    const client = s3Client(store);
    try {
      await client.send(new CreateBucketCommand({ Bucket: "bench" }));
      await client.send(new PutObjectCommand({ Bucket: "bench", Key: "mine/planted", Body: "precious" }));
      const work = await temps.make();
      const target = await scratch(work);
      const spec = await writeSpec(work, {
        name: "killed",
        targets: {
          scratch: { kind: "fs", path: target },
          launched: { kind: "s3", launch: "minio" },
          ext: externalS3Target("bench"),
        },
        defaults: { repeat: 1 },
        workloads: [
          { name: "disk", engine: "dd", target: "scratch", op: "write", bs: "64KiB", count: 4 },
          { name: "first", engine: "s3", target: "launched", op: "put", size: "64KiB", objects: 4 },
          {
            name: "long",
            engine: "s3",
            target: "ext",
            op: "put",
            size: "64KiB",
            objects: 5000,
            concurrency: 2,
          },
        ],
      });
      const out = join(work, "run");
      const child = startCli(["run", spec, "--out", out], s3Env(store));
      const watch = watchProcesses(child.pid!);
      await waitFor(
        async () => (await listObjects(client, "bench", "benchspec/")).length >= 10,
        60_000,
        "the long case's objects",
      );
      const minio = watch
        .seen()
        .filter((p) => / server /.test(p.cmdline) && p.cmdline.includes("benchspec-minio-"));
      expect(minio.map((p) => processAlive(p.pid))).toEqual([true]);
      const dataDir = / server (\S+)/.exec(minio[0]!.cmdline)![1]!;
      const owned = (await readdir(target)).filter((name) => name.startsWith("benchspec-"));
      expect(owned).toHaveLength(1);

      child.kill("SIGKILL");
      await child;
      watch.stop();
      // The watchdog notices at once; generous for two busy cores.
      await waitFor(() => !processAlive(minio[0]!.pid), 10_000, "the launched MinIO to die");
      expect(rowsOf(out).map((r) => r.case)).toEqual(["disk.scratch.write", "first.launched.put"]);
      // Left behind by the kill: the owned directory, the server's data, the keys in the external store.
      expect(existsSync(join(target, owned[0]!))).toBe(true);
      expect(existsSync(dataDir)).toBe(true);
      const left = await listObjects(client, "bench", "benchspec/killed/");
      expect(left.length).toBeGreaterThan(0);

      const cleaned = await startCli(["clean", out], s3Env(store));
      // The killed run's lock is stale (its pid is gone): clean takes it over, saying so, and nothing else.
      expect(cleaned.stderr.trim()).toMatch(
        /^benchspec: taking over \S+run\.lock: its holder \(pid \d+, since [^)]+\) no longer runs$/,
      );
      expect(cleaned.exitCode).toBe(0);
      expect(cleaned.stdout).toContain(join(target, owned[0]!));
      expect(cleaned.stdout).toContain(dataDir);
      expect(cleaned.stdout).toContain("the keys under bench/benchspec/killed/");
      expect(await readdir(target)).toEqual(["planted.txt"]);
      expect(existsSync(dataDir)).toBe(false);
      expect((await listObjects(client, "bench")).map((o) => o.key)).toEqual(["mine/planted"]);

      const again = await startCli(["clean", out], s3Env(store));
      expect([again.exitCode, again.stdout, again.stderr]).toEqual([0, "", ""]);
    } finally {
      client.destroy();
      await store.stop();
    }
  }, 150_000);

  it("clean after a run that removed everything itself says nothing: nothing was left", async () => {
    const work = await temps.make();
    const target = await scratch(work);
    const spec = await writeSpec(work, {
      name: "finished",
      targets: { disk: { kind: "fs", path: target } },
      workloads: [{ name: "w", engine: "dd", op: "write", bs: "64KiB", count: 2 }],
    });
    const out = join(work, "run");
    const run = await startCli(["run", spec, "--out", out]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(join(out, "leftovers.ndjson"), "utf8")).toContain(target);
    const cleaned = await startCli(["clean", out]);
    expect([cleaned.exitCode, cleaned.stdout, cleaned.stderr]).toEqual([0, "", ""]);
    expect(await readdir(target)).toEqual(["planted.txt"]);
  });

  it("takes fio along; --resume removes what the killed attempt left first", async () => {
    const work = await temps.make();
    const target = await scratch(work);
    const spec = await writeSpec(work, {
      name: "killedfio",
      targets: { scratch: { kind: "fs", path: target } },
      workloads: [
        {
          name: "fio",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "4MiB",
          bs: "4KiB",
          duration: "60s",
          repeat: 1,
        },
      ],
    });
    const out = join(work, "run");
    const child = startCli(["run", spec, "--out", out]);
    const watch = watchProcesses(child.pid!);
    // fio with the case's job file (not `fio --version` for provenance).
    const measuring = () =>
      watch.seen().filter((p) => /(^|\/)fio /.test(p.cmdline) && p.cmdline.includes(out));
    await waitFor(() => measuring().length > 0, 30_000, "fio");
    const fio = measuring();
    const owned = (await readdir(target)).filter((name) => name.startsWith("benchspec-"));
    child.kill("SIGKILL");
    await child;
    watch.stop();
    // fio's jobs run in sessions of their own: every process with the run's job file must go, not just fio.
    const survivors = () => listProcesses().filter((p) => p.cmdline.includes(out) && processAlive(p.pid));
    await waitFor(
      () => fio.every((p) => !processAlive(p.pid)) && survivors().length === 0,
      10_000,
      "fio to die",
    );
    expect(existsSync(join(target, owned[0]!))).toBe(true);

    // The resumed attempt runs the case again in a directory of its own, and removes the killed one's.
    const resumed = startCli(["run", "--resume", out]);
    await waitFor(() => !existsSync(join(target, owned[0]!)), 30_000, "the killed attempt's directory to go");
    resumed.kill("SIGINT");
    const result = await resumed;
    expect(result.stderr).toContain(`removed what an earlier attempt left: ${join(target, owned[0]!)}`);
    expect(await readdir(target)).toEqual(["planted.txt"]);
  }, 150_000);
});

describe("an engine's scratch outside the run directory, after SIGKILL", () => {
  it("dd's payload source and fio's link to an odd path are on record as made; clean removes them", async () => {
    const work = await temps.make();
    // A ':' in the path: fio takes the target through a symlink in a directory of benchspec's (fio/run.ts).
    const target = join(work, "odd:target");
    await mkdir(target);
    await writeFile(join(target, "planted.txt"), "precious");
    const spec = await writeSpec(work, {
      name: "scratches",
      targets: { scratch: { kind: "fs", path: target } },
      workloads: [
        { name: "dd", engine: "dd", op: "write", bs: "1MiB", count: 48, repeat: 50 },
        {
          name: "fio",
          engine: "fio",
          op: "randread",
          ioengine: "psync",
          size: "4MiB",
          bs: "4KiB",
          duration: "60s",
          repeat: 1,
        },
      ],
    });
    const recorded = (out: string) =>
      existsSync(join(out, "leftovers.ndjson"))
        ? readFileSync(join(out, "leftovers.ndjson"), "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => (JSON.parse(line) as { path?: string }).path ?? "")
        : [];
    for (const [made, skip] of [
      ["benchspec-dd-", []],
      ["benchspec-fio-", ["--set", "dd.repeat=1"]],
    ] as const) {
      const out = join(work, `run-${made}`);
      const child = startCli(["run", spec, "--out", out, ...skip]);
      try {
        await waitFor(
          () => recorded(out).some((path) => basename(path).startsWith(made) && existsSync(path)),
          60_000,
          `${made} on record`,
        );
      } finally {
        child.kill("SIGKILL");
        await child;
      }
      const scratch = recorded(out).filter((path) => basename(path).startsWith(made));
      expect(scratch.filter((path) => existsSync(path)).length, made).toBeGreaterThan(0);
      const clean = await startCli(["clean", out]);
      expect(clean.exitCode, clean.stderr).toBe(0);
      expect(scratch.filter((path) => existsSync(path))).toEqual([]);
    }
    expect(await readdir(target)).toEqual(["planted.txt"]);
  }, 180_000);
});

describe("Ctrl-C while the store is frozen", () => {
  it("ends the run within seconds, names what may remain, and clean removes it once the store answers", async () => {
    const store = await launchMinio();
    const client = s3Client(store);
    try {
      await client.send(new CreateBucketCommand({ Bucket: "bench" }));
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "frozen",
        targets: { ext: externalS3Target("bench") },
        workloads: [{ name: "long", op: "put", size: "64KiB", objects: 5000, concurrency: 2, repeat: 1 }],
      });
      const out = join(work, "run");
      const child = startCli(["run", spec, "--out", out], s3Env(store));
      await waitFor(
        async () => (await listObjects(client, "bench", "benchspec/")).length >= 10,
        60_000,
        "the case's objects",
      );
      process.kill(-store.pid, "SIGSTOP"); // alive, connected, and silent
      let result;
      try {
        await sleep(500);
        const interrupted = Date.now();
        child.kill("SIGINT");
        result = await child;
        // Without a bound it took minutes: the cleanup waits for a server that does not answer.
        expect(Date.now() - interrupted).toBeLessThan(15_000);
      } finally {
        process.kill(-store.pid, "SIGCONT");
      }
      expect(result.exitCode).toBe(130);
      expect(result.stderr).toMatch(
        /objects and incomplete multipart uploads may remain under bench\/benchspec\/frozen\/[^/]+\/long\.ext\.put\//,
      );
      expect(result.stderr).toContain(`benchspec clean ${out}`);

      const cleaned = await startCli(["clean", out], s3Env(store));
      expect([cleaned.exitCode, cleaned.stderr]).toEqual([0, ""]);
      expect(await listObjects(client, "bench")).toEqual([]);
    } finally {
      client.destroy();
      await store.stop();
    }
  }, 150_000);
});
