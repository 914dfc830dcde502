/** Host groups of `transport: fio`: fio's servers run fio cases on an fs path, and the spec says so where it is wrong. */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { diagnosticsOf, planOf } from "../support/spec.js";

const servers = { transport: "fio", hosts: ["node1", "10.0.0.5:8766", "[fd00::5]:8765"] };
const spec = (workload: object, target: object = { kind: "fs", path: "/srv/bench" }) => ({
  benchspec: 1,
  name: "t",
  targets: { scratch: target },
  hosts: { servers },
  workloads: [{ name: "w", target: "scratch", hosts: "servers", ...workload }],
});

describe("host groups of transport fio", () => {
  it("plans fio cases on an fs path", () => {
    const plan = planOf(spec({ engine: "fio", op: "randread" }));
    expect(plan.hosts.servers).toEqual(servers);
    expect(plan.cases.map((c) => c.params.hosts)).toEqual(["servers"]);
  });

  it("refuses another engine, at the workload's hosts", () => {
    const text = stringify(spec({ engine: "dd", op: "write" }));
    const [diagnostic] = diagnosticsOf(text);
    expect(diagnostic).toMatchObject({
      code: "unsupported-transport",
      path: ["workloads", 0, "hosts"],
      message: expect.stringContaining("fio's servers run fio jobs only, not engine dd"),
    });
    expect(diagnostic!.line).toBe(text.split("\n").findIndex((line) => line.includes("hosts: servers")) + 1);
  });

  it("refuses a target without a path, and a block device", () => {
    expect(diagnosticsOf(spec({ engine: "fio", op: "read" }, { kind: "fs" }))).toContainEqual(
      expect.objectContaining({
        code: "unsupported-transport",
        message: expect.stringContaining("needs a path"),
      }),
    );
    expect(
      diagnosticsOf(spec({ engine: "fio", op: "read" }, { kind: "block", device: "/dev/sdz" })),
    ).toContainEqual(expect.objectContaining({ code: "unsupported-transport" }));
  });

  it("refuses a server address fio could not take", () => {
    const bad = {
      ...spec({ engine: "fio", op: "read" }),
      hosts: { servers: { transport: "fio", hosts: ["a b"] } },
    };
    expect(diagnosticsOf(bad)).toContainEqual(
      expect.objectContaining({ code: "invalid-value", path: ["hosts", "servers", "hosts", 0] }),
    );
  });
});
