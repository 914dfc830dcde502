import { describe, expect, it } from "vitest";
import { renderDiagnostic } from "../../src/diagnostics/render.js";
import { validateText } from "../../src/engines/language.js";
import { diagnosticsOf, fsSpec, planOf } from "../support/spec.js";

const codes = (spec: object | string) => diagnosticsOf(spec).map((d) => d.code);

describe("expectations check metrics the engines report", () => {
  const dd = (metric: string, extra: object = {}) =>
    fsSpec([{ name: "seq", engine: "dd", op: "write", parallel: [1, 4] }], {
      expect: [{ workload: "seq", metric, atMost: 1, ...extra }],
    });

  it("dd reports throughput, iops and seconds, but no latency", () => {
    for (const metric of ["throughput", "iops", "seconds"]) expect(codes(dd(metric)), metric).toEqual([]);
    for (const metric of ["latency", "p50", "p90", "p99", "p99.9"]) {
      const diagnostics = diagnosticsOf(dd(metric));
      expect(diagnostics, metric).toMatchObject([
        { code: "metric-not-reported", path: ["expect", 0, "metric"] },
      ]);
      expect(diagnostics[0]?.message).toBe(
        `engine dd does not report ${metric}; it reports throughput, iops, seconds`,
      );
    }
  });

  it("fio, s3 and ipfs report every metric", () => {
    expect(
      codes(
        fsSpec([{ name: "r", op: "randread" }], { expect: [{ workload: "r", metric: "p99", atMost: 1 }] }),
      ),
    ).toEqual([]);
    for (const [kind, launch] of [
      ["s3", "minio"],
      ["ipfs", "kubo"],
    ]) {
      const spec = {
        benchspec: 1,
        name: "t",
        targets: { store: { kind, launch } },
        workloads: [{ name: "up", op: "put" }],
        expect: [{ workload: "up", metric: "p99.9", atMost: 1 }],
      };
      expect(codes(spec), kind).toEqual([]);
    }
  });

  it("only the engines of the matched cases count", () => {
    const spec = (where: object) =>
      fsSpec([{ name: "w", engine: ["fio", "dd"], op: "write" }], {
        expect: [{ workload: "w", where, metric: "latency", atMost: 1 }],
      });
    expect(codes(spec({ engine: "fio" }))).toEqual([]);
    const diagnostics = diagnosticsOf(spec({}));
    expect(diagnostics.map((d) => d.code)).toEqual(["metric-not-reported"]);
    expect(diagnostics[0]?.message).toMatch(/engine dd does not report latency; the engines .*\(dd, fio\)/);
  });
});

describe("ramps and steady-state windows fit into the duration", () => {
  const spec = (workload: object) => fsSpec([{ name: "w", op: "randwrite", ...workload }]);

  it("accepts them up to the duration, and without a duration for ramp", () => {
    expect(codes(spec({ duration: "30s", ramp: "30s" }))).toEqual([]);
    expect(codes(spec({ ramp: "30s" }))).toEqual([]);
    expect(
      codes(spec({ duration: "90s", steady: { metric: "iops", window: "60s", slope: "10%", ramp: "30s" } })),
    ).toEqual([]);
  });

  it("rejects ramp, steady.window or steady.ramp + window longer than the duration", () => {
    expect(diagnosticsOf(spec({ duration: "10s", ramp: "11s" }))).toMatchObject([
      { code: "longer-than-duration", path: ["workloads", 0, "ramp"] },
    ]);
    expect(
      diagnosticsOf(spec({ duration: "30s", steady: { metric: "iops", window: "1m", range: "2%" } })),
    ).toMatchObject([{ code: "longer-than-duration", path: ["workloads", 0, "steady", "window"] }]);
    expect(
      diagnosticsOf(
        spec({ duration: "1m", steady: { metric: "iops", window: "30s", range: "2%", ramp: "31s" } }),
      ),
    ).toMatchObject([{ code: "longer-than-duration", path: ["workloads", 0, "steady", "ramp"] }]);
  });

  it("checks each case: a swept duration can be too short for some", () => {
    const diagnostics = diagnosticsOf(
      fsSpec([{ name: "w", op: "randread", ramp: "5s", matrix: { duration: ["10s", "2s"] } }]),
    );
    expect(diagnostics.map((d) => d.message)).toEqual([
      "ramp 5s is longer than duration 2s, the run time of each repetition",
    ]);
  });
});

describe("values listed twice", () => {
  it("rejects duplicates in lists and dimensions, compared after normalization", () => {
    expect(diagnosticsOf(fsSpec([{ name: "w", op: ["read", "read"] }]))).toMatchObject([
      { code: "duplicate-value", path: ["workloads", 0, "op", 1] },
    ]);
    expect(diagnosticsOf(fsSpec([{ name: "w", op: "read", size: ["1MiB", "1048576B"] }]))).toMatchObject([
      { code: "duplicate-value", path: ["workloads", 0, "size", 1] },
    ]);
    expect(
      diagnosticsOf(
        fsSpec([
          { name: "w", op: "read", matrix: { data: [{ compressible: 50 }, { compressible: "50%" }] } },
        ]),
      ),
    ).toMatchObject([{ code: "duplicate-value", path: ["workloads", 0, "matrix", "data", 1] }]);
    expect(planOf(fsSpec([{ name: "w", op: ["read", "write"] }])).cases).toHaveLength(2);
  });
});

describe("diagnostic details", () => {
  it("a duplicate key names the path of the mapping that holds it", () => {
    const text = `benchspec: 1
name: t
targets:
  scratch: { kind: fs }
workloads:
  - name: a
    op: read
  - name: m4
    op: read
    matrix:
      bs: [4KiB]
      bs: [8KiB]
`;
    const [d] = validateText("m4.yaml", text).diagnostics;
    expect(d).toMatchObject({ code: "duplicate-key", path: ["workloads", 1, "matrix"], line: 12, column: 7 });
    expect(renderDiagnostic(d!, { color: false })).toBe(
      'm4.yaml:12:7 workloads[1].matrix: error: the key "bs" appears twice in this mapping [duplicate-key]',
    );
    const top = validateText("top.yaml", "benchspec: 1\nname: a\nname: b\n").diagnostics[0];
    expect(top).toMatchObject({ code: "duplicate-key", path: [], line: 3, column: 1 });
  });

  it("percentages: a number or a string with %, within 0–100% (a range error otherwise)", () => {
    const read = (value: unknown) => fsSpec([{ name: "w", op: "randrw", read: value }]);
    expect(planOf(read(50)).cases[0]?.params.read).toBe(50);
    expect(planOf(read("50%")).cases[0]?.params.read).toBe(50);
    expect(planOf(read("2.5 %")).cases[0]?.params.read).toBe(2.5);
    const quoted = diagnosticsOf(read("50"));
    expect(quoted).toMatchObject([{ code: "invalid-unit" }]);
    expect(quoted[0]?.message).toMatch(/write 50 \(a bare number\) or 50%/);
    for (const value of [150, "150%", -1]) {
      const [d] = diagnosticsOf(read(value));
      expect(d, String(value)).toMatchObject({ code: "out-of-range" });
      expect(d?.message).toMatch(/is outside 0–100%$/);
    }
  });

  it("an empty string is said to be empty", () => {
    const [d] = diagnosticsOf({
      ...fsSpec([{ name: "w", op: "read" }]),
      targets: { scratch: { kind: "fs", path: "" } },
    });
    expect(d).toMatchObject({ code: "invalid-value", message: "must not be empty" });
  });

  it("a var that failed to evaluate is not called unknown", () => {
    const spec = fsSpec([{ name: "w", op: "randread" }], {
      vars: { a: 1, e: "2 *" },
      expect: [{ workload: "w", metric: "iops", atLeast: "e * 2" }],
    });
    const messages = diagnosticsOf(spec).map((d) => `${d.code}: ${d.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^expr-syntax: /),
      'unknown-var: variable "e" could not be evaluated (see its error)',
    ]);
    const later = diagnosticsOf(fsSpec([{ name: "w", op: "read" }], { vars: { a: "a + 1" } }));
    expect(later[0]?.message).toMatch(/"a" cannot use itself/);
  });

  it("server addresses are http(s) URLs, or start with an env reference", () => {
    const s3 = (endpoint: string) => ({
      benchspec: 1,
      name: "t",
      targets: { store: { kind: "s3", endpoint } },
      workloads: [{ name: "up", op: "put" }],
    });
    for (const ok of [
      "http://127.0.0.1:9000",
      "https://s3.example.com/",
      "${env:S3_ENDPOINT}",
      "http://${env:HOST}:9000",
    ])
      expect(codes(s3(ok)), ok).toEqual([]);
    for (const bad of ["ftp://x", "not a url", "localhost:9000", "http://"]) {
      const [d] = diagnosticsOf(s3(bad));
      expect(d, bad).toMatchObject({ code: "invalid-value", path: ["targets", "store", "endpoint"] });
      expect(d?.message).toMatch(/is not an http:\/\/ or https:\/\/ URL/);
    }
    const ipfs = {
      benchspec: 1,
      name: "t",
      targets: { node: { kind: "ipfs", api: "not a url" } },
      workloads: [{ name: "up", op: "put" }],
    };
    expect(diagnosticsOf(ipfs)).toMatchObject([{ code: "invalid-value", path: ["targets", "node", "api"] }]);
  });
});

describe("credentials in a server's URL", () => {
  const spec = (target: object) => ({
    benchspec: 1,
    name: "t",
    targets: { store: target },
    workloads: [{ name: "up", op: "put" }],
  });

  it("written literally, they are a literal-secret warning on the address key; ${env:NAME} ones are not", () => {
    for (const [kind, key] of [
      ["s3", "endpoint"],
      ["ipfs", "api"],
    ] as const) {
      expect(diagnosticsOf(spec({ kind, [key]: "http://user:pw@127.0.0.1:9000" })), kind).toMatchObject([
        { code: "literal-secret", severity: "warning", path: ["targets", "store", key] },
      ]);
      expect(codes(spec({ kind, [key]: "http://${env:U}:${env:P}@127.0.0.1:9000" })), kind).toEqual([]);
      expect(codes(spec({ kind, [key]: "http://127.0.0.1:9000" })), kind).toEqual([]);
    }
  });
});

describe("YAML 1.2 booleans (as docs/language.md says)", () => {
  it("takes true/True/TRUE and false/False/FALSE, and refuses yes/on", () => {
    for (const [text, value] of [
      ["true", true],
      ["True", true],
      ["TRUE", true],
      ["false", false],
      ["False", false],
      ["FALSE", false],
    ] as const) {
      const yaml = `benchspec: 1\nname: b\ntargets: { t: { kind: fs } }\nworkloads: [{ name: w, op: read, direct: ${text} }]\n`;
      expect(validateText("b.yaml", yaml).plan?.cases[0]?.params.direct, text).toBe(value);
    }
    for (const text of ["yes", "on"]) {
      const yaml = `benchspec: 1\nname: b\ntargets: { t: { kind: fs } }\nworkloads: [{ name: w, op: read, direct: ${text} }]\n`;
      expect(
        validateText("b.yaml", yaml).diagnostics.map((d) => d.code),
        text,
      ).toContain("invalid-type");
    }
  });
});

describe("engines are the registry's", () => {
  it("an engine the registry does not have is refused where it is named, with the names it has", () => {
    const diagnostics = diagnosticsOf(fsSpec([{ name: "w", engine: ["fio", "fioo"], op: "read" }]));
    expect(diagnostics).toMatchObject([{ code: "invalid-value", path: ["workloads", 0, "engine", 1] }]);
    expect(diagnostics[0]?.message).toBe(
      'no engine is named "fioo"; expected one of fio, dd, s3, ipfs — did you mean "fio"?',
    );
  });
});
