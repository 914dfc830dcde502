import { execa } from "execa";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compilePlan, type CompileTarget } from "../../src/compile/compile.js";
import type { Artifact } from "../../src/emit/types.js";
import { VERSION } from "../../src/cli/context.js";
import { loadSpec } from "../../src/engines/language.js";
import { runCli } from "../support/cli.js";
import { planOf, ROOT, specFiles } from "../support/spec.js";

const GOLDEN = join(ROOT, "test", "golden");
const UPDATE = process.env.UPDATE_GOLDEN === "1";
const temps: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-compile-"));
  temps.push(dir);
  return dir;
};
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

async function compileSpec(
  file: string,
  sets: string[] = [],
  formats: CompileTarget[] = ["fio", "shell", "sdk"],
): Promise<Artifact[]> {
  const { plan } = await loadSpec(file, { sets });
  return (await compilePlan(plan!, formats, VERSION)).artifacts;
}

/** Goldens of a shipped spec's form on host groups: name → the spec, its --set options and targets. */
const GROUP_FORMS: Record<string, { spec: string; sets: string[]; formats: CompileTarget[] }> = {
  "object-upload-download.pods": {
    spec: "object-upload-download.yaml",
    sets: ["target=external", "hosts=pods", "size=32MiB", "multipart={partSize: 8MiB, queue: 4}"],
    formats: ["kubernetes"],
  },
};

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe("golden artifacts (regenerate with UPDATE_GOLDEN=1 npx vitest run test/compile/compile.test.ts)", () => {
  const forms = [
    ...specFiles().map((file) => ({ name: basename(file, ".yaml"), compile: () => compileSpec(file) })),
    ...Object.entries(GROUP_FORMS).map(([name, form]) => ({
      name,
      compile: () => compileSpec(join(ROOT, "specs", form.spec), form.sets, form.formats),
    })),
  ];
  for (const { name, compile } of forms) {
    it(`${name}: every artifact is byte-identical to test/golden/${name}/`, async () => {
      const artifacts = await compile();
      const dir = join(GOLDEN, name);
      if (UPDATE) {
        await rm(dir, { recursive: true, force: true });
        for (const artifact of artifacts) {
          await mkdir(dirname(join(dir, artifact.path)), { recursive: true });
          await writeFile(join(dir, artifact.path), artifact.content);
        }
      }
      expect(await listFiles(dir)).toEqual(artifacts.map((a) => a.path).sort());
      for (const artifact of artifacts) {
        expect(artifact.content, artifact.path).toBe(await readFile(join(dir, artifact.path), "utf8"));
      }
    });

    it(`${name}: compiles to the same bytes twice`, async () => {
      expect(await compile()).toEqual(await compile());
    });
  }

  it("every golden fio jobfile passes fio --parse-only, whole and one case's sections at a time", async () => {
    const jobfiles = (await listFiles(GOLDEN)).filter((path) => path.endsWith(".fio"));
    const dir = await tempDir();
    const parse = (args: string[]) =>
      execa("fio", ["--parse-only", ...args], {
        env: { BENCHSPEC_DIR: dir, BENCHSPEC_DEVICE: "/dev/null" },
        reject: false,
      });
    let sections = 0;
    for (const jobfile of jobfiles) {
      const result = await parse([join(GOLDEN, jobfile)]);
      expect(result.exitCode, `${jobfile}: ${result.stderr}`).toBe(0);
      expect(result.stderr, jobfile).toBe("");
      const names = [...(await readFile(join(GOLDEN, jobfile), "utf8")).matchAll(/^\[([^\]]+)\]$/gm)]
        .map((m) => m[1]!)
        .filter((name) => name !== "global");
      sections += names.length;
      const one = await parse([`--section=${names.at(-1)}`, join(GOLDEN, jobfile)]);
      expect(one.exitCode, `${jobfile} --section=${names.at(-1)}: ${one.stderr}`).toBe(0);
    }
    expect(sections).toBeGreaterThan(70);
  });
});

describe("fio jobfiles", () => {
  const fioOf = async (spec: object, workload: string) =>
    (await compilePlan(planOf(spec), ["fio"], VERSION)).artifacts.find(
      (a) => a.path === `fio/${workload}.fio`,
    )!.content;

  it("maps the case's parameters to fio options, sizes in bytes", async () => {
    const text = await fioOf(
      {
        benchspec: 1,
        name: "t",
        targets: { d: { kind: "block", device: "/dev/loop7", destructive: true } },
        workloads: [
          {
            name: "w",
            op: "randrw",
            read: 70,
            bs: "16KiB",
            iodepth: 32,
            jobs: 2,
            duration: "90s",
            ramp: "5s",
            sample: "1s",
            data: { compressible: 50 },
            steady: { metric: "throughput", window: "30s", range: "2%" },
          },
        ],
      },
      "w",
    );
    for (const line of [
      "filename=${BENCHSPEC_DEVICE}",
      "[w.d.randrw]",
      "rw=randrw",
      "rwmixread=70",
      "bs=16384",
      "iodepth=32",
      "numjobs=2",
      "group_reporting=1",
      "time_based=1",
      "runtime=90000ms",
      "ramp_time=5000ms",
      "ss=bw:2%",
      "ss_dur=30000ms",
      "log_avg_msec=1000",
      "write_bw_log=w.d.randrw",
      "buffer_compress_percentage=50",
      "percentile_list=50:90:99:99.9",
    ]) {
      expect(text.split("\n")).toContain(line);
    }
    // the whole device unless the spec bounds it
    expect(text).not.toMatch(/^size=/m);
  });
});

describe("compile command", () => {
  it("compiles what the target can express and names each workload it left out and the targets that can", async () => {
    const { plan } = await loadSpec(join(ROOT, "specs/quickstart.yaml"));
    const { artifacts, leftOut, compiled } = await compilePlan(plan!, ["fio"], VERSION);
    expect(leftOut).toEqual([
      'workload "dd-seq" (engine dd) cannot be compiled to fio; targets that can: shell',
    ]);
    expect(compiled).toBe(plan!.cases.filter((c) => c.engine === "fio").length);
    expect(artifacts.map((a) => a.path)).toContain("fio/fio-4k.fio");
    const out = join(await tempDir(), "out");
    const result = await runCli(["compile", "specs/quickstart.yaml", "--target", "fio", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'left out: workload "dd-seq" (engine dd) cannot be compiled to fio; targets that can: shell\n',
    );
    expect(result.stdout).toMatch(/^wrote \d+ files to .* \(\d+ of \d+ cases\)\n$/);
    expect(await listFiles(out)).toEqual(["fio/fio-4k.fio", "plan.json"]);
  });

  it("says, per workload, what the script does not do that benchspec run does (a fresh Kubo node, s3/ipfs autotune and series, host groups it does)", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "gaps",
      targets: {
        scratch: { kind: "fs" },
        store: { kind: "s3", launch: "minio" },
        node: { kind: "ipfs", launch: "kubo", fresh: "per-repetition" },
      },
      hosts: { clients: { transport: "ssh", hosts: ["a", "b"] } },
      workloads: [
        { name: "plain", target: "scratch", op: "read", size: "1MiB" },
        { name: "spread", target: "scratch", op: "read", size: "1MiB", hosts: "clients" },
        {
          name: "series",
          target: "store",
          op: "put",
          duration: "2s",
          sample: "500ms",
          autotune: { param: "concurrency", start: 1, factor: 2, max: 4, stopWhenGainBelow: 5 },
        },
        {
          name: "ramp",
          target: "scratch",
          engine: "dd",
          op: "write",
          autotune: { param: "parallel", start: 1, factor: 2, max: 8, stopWhenGainBelow: 5 },
        },
        { name: "mix", target: "store", op: "mixed", duration: "2s" },
        {
          name: "mixparts",
          target: "store",
          op: "mixed",
          size: "8MiB",
          multipart: { partSize: "5MiB", queue: 2 },
        },
        { name: "fresh", target: "node", op: "put" },
      ],
    });
    const { leftOut, hostGroups } = await compilePlan(plan, ["shell"], VERSION);
    // A case on a host group runs as one copy of the script per host: compile says how, not "left out".
    expect(hostGroups).toEqual([
      'host group "clients" (ssh, 2 hosts): benchspec.sh on each host at once with BENCHSPEC_GROUP=clients BENCHSPEC_HOST_COUNT=2 BENCHSPEC_HOST_INDEX=0…1 and BENCHSPEC_BARRIER=<a directory they share> (or BENCHSPEC_EPOCH and BENCHSPEC_PERIOD), then benchspec merge of their outputs',
    ]);
    expect(leftOut).toEqual([
      'workload "ramp" in benchspec.sh: autotune is not run: the script measures one setting of parallel (its case function says which)',
      'workload "mixparts" in benchspec.sh: op mixed with multipart uploads is not run: its case fails; run it with benchspec run (or its sdk call sequence)',
    ]);
  });

  it("refuses a target that can express no workload, naming each and the targets that can, writing nothing", async () => {
    const { plan } = await loadSpec(join(ROOT, "specs/shared-storage-dd.yaml"));
    await expect(compilePlan(plan!, ["sdk"], VERSION)).rejects.toThrow(
      expect.objectContaining({ code: "not-compilable" }),
    );
    await expect(compilePlan(plan!, ["sdk"], VERSION)).rejects.toThrow(
      /workload "dd-parallel" \(engine dd\) cannot be compiled to sdk; targets that can: shell/,
    );
    const out = join(await tempDir(), "out");
    const result = await runCli(["compile", "specs/shared-storage-dd.yaml", "--target", "sdk", "--out", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot be compiled to sdk; targets that can: shell\n$/);
    expect(await listFiles(out)).toEqual([]); // nothing half-written
  });

  it("writes plan.json mapping every case to its artifacts, and recompiles over its own output only", async () => {
    const out = join(await tempDir(), "out");
    expect((await runCli(["compile", "specs/quickstart.yaml", "--out", out])).code).toBe(0);
    const index = JSON.parse(await readFile(join(out, "plan.json"), "utf8"));
    expect(index.format).toBe("benchspec-plan/1");
    expect(index.cases.find((c: { id: string }) => c.id === "fio-4k.scratch.randread").artifacts).toEqual({
      fio: ["fio/fio-4k.fio"],
      shell: ["benchspec.sh", "fio/fio-4k.fio"],
    });
    expect(
      (await runCli(["compile", "specs/quickstart.yaml", "--out", out, "--set", "fio-4k.op=read"])).code,
    ).toBe(0);
    expect(await readFile(join(out, "fio", "fio-4k.fio"), "utf8")).toContain("[fio-4k.scratch.read]");
    // A spec without fio cases over the same directory: our jobfile goes, a file the user put there stays.
    await writeFile(join(out, "fio", "notes.txt"), "mine");
    expect((await runCli(["compile", "specs/shared-storage-dd.yaml", "--out", out])).code).toBe(0);
    expect(await listFiles(join(out, "fio"))).toEqual(["notes.txt"]);

    const foreign = await tempDir();
    await writeFile(join(foreign, "precious.txt"), "user data");
    const refused = await runCli(["compile", "specs/quickstart.yaml", "--out", foreign]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("not empty");
    expect(await readFile(join(foreign, "precious.txt"), "utf8")).toBe("user data");
  });
});
