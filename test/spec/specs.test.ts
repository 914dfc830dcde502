import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { countRepetitions } from "../../src/plan/types.js";
import { specJsonSchema } from "../../src/spec/json-schema.js";
import { ENGINE_FACTS } from "../../src/engines/index.js";
import { loadSpec } from "../../src/engines/language.js";
import { ROOT, specFiles } from "../support/spec.js";

/** Cases and repetitions each shipped spec expands to, worked out by hand from the spec. */
const EXPECTED: Record<string, { cases: number; repetitions: number }> = {
  "quickstart.yaml": { cases: 2 * 2 + 2, repetitions: 6 * 3 },
  // Two disks: IOPS 8 bs × 7 mixes, throughput 2 × 2, latency 3 × 3 in at most 25 rounds each; WSAT; HIR 5
  // idle times × 360 bursts; XSR 2 + 1 accesses.
  "cloud-disk-pts.yaml": {
    cases: 2 * (8 * 7 + 2 * 2 + 3 * 3 + 1 + 5 + 3),
    repetitions: 2 * ((56 + 4 + 9) * 25 + 1 + 5 * 360 + 3),
  },
  "ipfs-file-sizes.yaml": { cases: 2 * 2 * 7, repetitions: 28 * 5 },
  "minio-speedtest.yaml": { cases: 2 * 2 + 1 + 2, repetitions: 7 },
  "shared-storage-dd.yaml": { cases: 5 * 3, repetitions: 15 * 3 },
  "object-upload-download.yaml": { cases: 2 * 2, repetitions: 4 * 3 },
  // PUT and GET, each 3 repetitions (the autotune steps happen inside them).
  "s3-latency-under-load.yaml": { cases: 2, repetitions: 2 * 3 },
};

describe("shipped specs", () => {
  it("has an expected count for every spec", () => {
    expect(
      specFiles()
        .map((file) => basename(file))
        .sort(),
    ).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const file of specFiles()) {
    it(`${basename(file)} validates and expands to the expected cases`, async () => {
      const result = await loadSpec(file);
      expect(result.diagnostics).toEqual([]);
      expect(result.plan?.cases.length).toBe(EXPECTED[basename(file)]?.cases);
      expect(countRepetitions(result.plan!)).toBe(EXPECTED[basename(file)]?.repetitions);
      expect(readFileSync(file, "utf8")).toMatch(
        /^# yaml-language-server: \$schema=\.\.\/schema\/benchspec\.schema\.json\n/,
      );
    });
  }
});

describe("schema/benchspec.schema.json", () => {
  it("is what `benchspec schema` generates from the zod schema (run `npm run schema` after changing it)", () => {
    expect(readFileSync(`${ROOT}/schema/benchspec.schema.json`, "utf8")).toBe(specJsonSchema(ENGINE_FACTS));
  });

  it("describes the language: strict objects, units as patterns", () => {
    const schema = JSON.parse(specJsonSchema(ENGINE_FACTS));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(["benchspec", "name", "targets", "workloads"]));
    expect(JSON.stringify(schema)).toContain("KiB");
  });
});
