/**
 * The multi-host forms of the shipped scenario specs stay valid: the invocation each spec's header documents
 * (`#   benchspec run specs/<file> … --hosts …`) and the scaled-down one docs/scenarios.md runs on the test
 * hosts validate and plan every case onto the `clients` group — and without them every case stays on this
 * machine.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../src/engines/language.js";
import { SPECS_DIR } from "../support/spec.js";

const MULTI_HOST_SPECS = ["shared-storage-dd.yaml", "object-upload-download.yaml"];

/** The `--set` and `--hosts` options of the run command a spec's header comment documents for several hosts. */
function documentedOptions(file: string): { sets: string[]; hosts: string[] } {
  const line = readFileSync(file, "utf8")
    .split("\n")
    .find((text) => /^#\s+benchspec run specs\/\S+\.yaml .*--hosts /.test(text));
  if (line === undefined) throw new Error(`${file}: no documented multi-host command in the header`);
  // Written without quotes, so words are what the shell would pass.
  expect(line).not.toMatch(/['"\\]/);
  const words = line.replace(/^#\s+/, "").split(/\s+/);
  const options = { sets: [] as string[], hosts: [] as string[] };
  for (let i = 3; i < words.length; i += 2) {
    const [flag, value] = [words[i], words[i + 1]];
    if (value === undefined || (flag !== "--set" && flag !== "--hosts"))
      throw new Error(`${file}: unexpected ${flag} in the documented command`);
    (flag === "--set" ? options.sets : options.hosts).push(value);
  }
  return options;
}

async function planOf(name: string, options: { sets?: string[]; hosts?: string[] }) {
  const result = await loadSpec(join(SPECS_DIR, name), options);
  expect(result.diagnostics).toEqual([]);
  return result.plan!;
}

describe("multi-host forms of the scenario specs", () => {
  for (const name of MULTI_HOST_SPECS) {
    it(`${name}: the header's command puts every case on the clients group`, async () => {
      const options = documentedOptions(join(SPECS_DIR, name));
      expect(options.hosts).toEqual([expect.stringMatching(/^clients=/)]);
      const single = await planOf(name, {});
      const multi = await planOf(name, options);
      expect(single.cases.every((c) => c.params.hosts === undefined)).toBe(true);
      expect(multi.cases.length).toBe(single.cases.length);
      expect(multi.cases.every((c) => c.params.hosts === "clients")).toBe(true);
      expect(multi.hosts.clients).toMatchObject({
        transport: "ssh",
        hosts: options.hosts[0]!.replace(/^clients=/, "").split(","),
      });
      // Without --hosts, the group the spec itself defines.
      const own = await planOf(name, { sets: options.sets });
      expect(own.cases.every((c) => c.params.hosts === "clients")).toBe(true);
      expect(own.hosts.clients).toMatchObject({ transport: "ssh", hosts: ["client1", "client2", "client3"] });
    });
  }

  it("shared-storage-dd from three test hosts onto their shared file system, as docs/scenarios.md runs it", async () => {
    const plan = await planOf("shared-storage-dd.yaml", {
      hosts: ["clients=h1,h2,h3"],
      sets: [
        "hosts=clients",
        "hosts.clients.command=node /checkout/bin/benchspec.js",
        "target=nfs",
        "targets.nfs.path=/srv/benchspec-shared",
        "count=10",
        "parallel=[2, 4]",
        "repeat=3",
      ],
    });
    expect(plan.cases.map((c) => c.id)).toEqual([
      "dd-parallel.nfs.write.parallel-2",
      "dd-parallel.nfs.write.parallel-4",
    ]);
    expect(plan.cases.every((c) => c.params.hosts === "clients")).toBe(true);
    expect(plan.hosts.clients).toMatchObject({
      hosts: ["h1", "h2", "h3"],
      command: "node /checkout/bin/benchspec.js",
    });
    expect(plan.targets.nfs).toMatchObject({ kind: "fs", path: "/srv/benchspec-shared" });
  });

  it("object-upload-download from three test hosts against one store on their bridge, as docs/scenarios.md runs it", async () => {
    const plan = await planOf("object-upload-download.yaml", {
      hosts: ["clients=h1,h2,h3"],
      sets: [
        "target=external",
        "hosts=clients",
        "size=32MiB",
        "multipart={partSize: 8MiB, queue: 4}",
        "concurrency=[1, 4]",
        "transfer.matrix.include=[{concurrency: 1, objects: 1}, {concurrency: 4, objects: 4}]",
        "repeat=3",
      ],
    });
    expect(plan.cases.map((c) => c.id)).toEqual([
      "transfer.external.put.concurrency-1.objects-1",
      "transfer.external.put.concurrency-4.objects-4",
      "transfer.external.get.concurrency-1.objects-1",
      "transfer.external.get.concurrency-4.objects-4",
    ]);
    expect(plan.cases.every((c) => c.params.hosts === "clients" && c.target === "external")).toBe(true);
  });

  it("object-upload-download refuses the launched store for the clients: it listens on loopback only", async () => {
    const result = await loadSpec(join(SPECS_DIR, "object-upload-download.yaml"), {
      sets: ["hosts=clients"],
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["unreachable-from-hosts"]);
  });
});
