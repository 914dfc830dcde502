import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { renderPlan } from "../../src/cli/plan.js";
import { validateText } from "../../src/engines/language.js";
import { diagnosticsOf, fsSpec, planOf } from "../support/spec.js";

const clients = { transport: "ssh", hosts: ["h1", "alice@h2", "ssh://root@10.77.0.13:22"] };

describe("host groups in the language", () => {
  it("puts a workload's cases on its group, and sweeps groups like any parameter", () => {
    const plan = planOf(
      fsSpec([{ name: "w", engine: "dd", op: "write", hosts: ["one", "clients"] }], {
        hosts: { clients, one: { transport: "ssh", hosts: ["h1"] } },
      }),
    );
    expect(plan.cases.map((c) => [c.id, c.params.hosts])).toEqual([
      ["w.scratch.write.hosts-one", "one"],
      ["w.scratch.write.hosts-clients", "clients"],
    ]);
    expect(plan.hosts.clients).toEqual(clients);
    const table = renderPlan(plan);
    expect(table).toContain("clients: h1, alice@h2, ssh://root@10.77.0.13:22 (ssh)");
    expect(table).toContain("one: h1 (ssh)");
  });

  it("keeps cases without hosts on this machine", () => {
    const plan = planOf(fsSpec([{ name: "w", engine: "dd", op: "write" }]));
    expect(plan.cases[0]!.params.hosts).toBeUndefined();
    expect(renderPlan(plan)).not.toContain("hosts");
  });

  it("names an unknown group with its position and a suggestion", () => {
    const text = stringify(
      fsSpec([{ name: "w", engine: "dd", op: "write", hosts: "client" }], { hosts: { clients } }),
    );
    const [diagnostic] = diagnosticsOf(text);
    expect(diagnostic).toMatchObject({
      code: "unknown-host-group",
      path: ["workloads", 0, "hosts"],
      message: expect.stringContaining('did you mean "clients"'),
    });
    expect(diagnostic!.line).toBeGreaterThan(0);
  });

  it("refuses an ssh destination ssh would read as an option", () => {
    const [diagnostic] = diagnosticsOf(
      fsSpec([{ name: "w", engine: "dd", op: "write", hosts: "bad" }], {
        hosts: { bad: { transport: "ssh", hosts: ["-oProxyCommand=touch /tmp/x"] } },
      }),
    );
    expect(diagnostic).toMatchObject({ code: "invalid-value", path: ["hosts", "bad", "hosts", 0] });
  });

  it("takes purge: false and idle: 0s on a host group (they ask for nothing); refuses purge: true there", () => {
    const on = (extra: object) =>
      diagnosticsOf(
        fsSpec([{ name: "w", engine: "dd", op: "write", hosts: "clients", ...extra }], {
          hosts: { clients },
        }),
      ).filter((d) => d.severity === "error");
    expect(on({ purge: false, idle: "0s" })).toEqual([]);
    expect(on({ purge: true })).toEqual([expect.objectContaining({ code: "unsupported-with-hosts" })]);
  });

  it("refuses idle, sample and connectTimeout past what a timer can wait (596 h), where they are written", () => {
    const group = { transport: "ssh", hosts: ["h1"], connectTimeout: "600h" };
    const diagnostics = diagnosticsOf(
      fsSpec([{ name: "w", engine: "fio", op: "read", size: "1MiB", idle: "700h", sample: "3000000s" }], {
        hosts: { clients: group },
      }),
    ).filter((d) => d.code === "out-of-range");
    expect(diagnostics.map((d) => d.path.join("."))).toEqual(
      expect.arrayContaining(["hosts.clients.connectTimeout", "workloads.0.idle", "workloads.0.sample"]),
    );
    expect(diagnostics[0]!.message).toBe("at most 596h (2147483s): a longer wait cannot be timed");
    const within = fsSpec([
      { name: "w", engine: "fio", op: "read", size: "1MiB", idle: "596h", sample: "1s" },
    ]);
    expect(diagnosticsOf(within).filter((d) => d.severity === "error")).toEqual([]);
  });

  it("refuses a port outside 1–65535 where it is written, for ssh destinations and fio servers", () => {
    const groups = {
      ssh: { transport: "ssh", hosts: ["h1", "ssh://h2:99999", "ssh://h3:0", "ssh://h4:65535"] },
      fio: { transport: "fio", hosts: ["s1:70000", "[fd00::5]:8765", "s3:65535"] },
    };
    const diagnostics = diagnosticsOf(
      fsSpec([{ name: "w", engine: "fio", op: "read", size: "1MiB", hosts: "ssh" }], { hosts: groups }),
    ).filter((d) => d.code === "invalid-value");
    expect(diagnostics.map((d) => [d.path, d.message])).toEqual([
      [["hosts", "ssh", "hosts", 1], "port 99999 is out of range: a port is 1–65535"],
      [["hosts", "ssh", "hosts", 2], "port 0 is out of range: a port is 1–65535"],
      [["hosts", "fio", "hosts", 0], "port 70000 is out of range: a port is 1–65535"],
    ]);
    expect(diagnostics.every((d) => d.line !== undefined && d.line > 0)).toBe(true);
  });

  it("refuses a launched server for cases on other hosts: it listens on this machine's loopback", () => {
    const diagnostics = diagnosticsOf({
      benchspec: 1,
      name: "t",
      targets: { store: { kind: "s3", launch: "minio" } },
      hosts: { clients },
      workloads: [{ name: "w", op: "put", hosts: "clients" }],
    });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ code: "unreachable-from-hosts", path: ["workloads", 0, "hosts"] }),
    );
  });

  it("--hosts runs every workload from the hosts given, and refines a group the spec defines", () => {
    const spec = stringify(
      fsSpec([{ name: "w", engine: "dd", op: "write" }], {
        hosts: { clients: { ...clients, command: "npx benchspec" } },
      }),
    );
    const all = validateText("t.yaml", spec, { hosts: ["ws1,ws2"] }).plan!;
    expect(all.cases[0]!.params.hosts).toBe("command-line");
    expect(all.hosts["command-line"]).toEqual({ transport: "ssh", hosts: ["ws1", "ws2"] });

    const refined = validateText("t.yaml", spec, { hosts: ["clients=ws3"] }).plan!;
    expect(refined.hosts.clients).toEqual({ transport: "ssh", hosts: ["ws3"], command: "npx benchspec" });
    // A group named on the command line changes the group, not which workloads use it.
    expect(refined.cases[0]!.params.hosts).toBeUndefined();

    const set = validateText("t.yaml", spec, { sets: ["hosts=clients"] }).plan!;
    expect(set.cases[0]!.params.hosts).toBe("clients");
  });
});
