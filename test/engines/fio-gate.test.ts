import { connect } from "node:net";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { fioGate } from "../../src/engines/fio/gate.js";

const port = (prerun: string) => Number(/127\.0\.0\.1\/(\d+)/.exec(prerun)![1]);

/** Connects as a stranger would: no token, or a wrong one. Resolves when the gate hangs up. */
const stranger = (at: number, say: string) =>
  new Promise<string>((resolve) => {
    const socket = connect(at, "127.0.0.1", () => socket.write(say));
    let heard = "";
    socket.on("data", (chunk) => (heard += chunk.toString()));
    socket.on("error", () => {});
    socket.on("close", () => resolve(heard));
  });

describe("fio's start gate", () => {
  it("counts and releases only the preruns that say its token, and drops other local connections", async () => {
    const gate = await fioGate(2);
    let armed = false;
    void gate.armed.then(() => (armed = true));
    const at = port(gate.prerun);
    // A stranger with a wrong token, or a line of its own, is hung up on and never released.
    expect(await stranger(at, "0123456789abcdef0123456789abcdef\n")).toBe("");
    expect(await stranger(at, "go\n")).toBe("");
    const env = { ...process.env, ...gate.env };
    const jobs = [execa("sh", ["-c", gate.prerun], { env }), execa("sh", ["-c", gate.prerun], { env })];
    await gate.armed;
    expect(armed).toBe(true);
    gate.open();
    const done = await Promise.all(jobs);
    expect(done.map((job) => job.exitCode)).toEqual([0, 0]);
  });

  it("is not armed by a prerun without the token in its environment", async () => {
    const gate = await fioGate(1);
    let armed = false;
    void gate.armed.then(() => (armed = true));
    const { BENCHSPEC_GATE_TOKEN: _, ...env } = { ...process.env, ...gate.env };
    const job = await execa("sh", ["-c", gate.prerun], { env, extendEnv: false, reject: false });
    // Hung up on: its read fails, and fio would end that job unrun.
    expect(job.exitCode).not.toBe(0);
    expect(armed).toBe(false);
    gate.close();
  });
});
