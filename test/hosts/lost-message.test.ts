import { describe, expect, it } from "vitest";
import { WorkerLink } from "../../src/hosts/session.js";
import type { StartedWorkers } from "../../src/hosts/types.js";

const workers: StartedWorkers = { write: () => {}, stderr: () => "", stop: async () => {} };
const alive = (busy: boolean) => ({ t: "alive" as const, from: 0, busy });
const armed = { t: "armed" as const, from: 0, case: "c", repetition: 0, warmup: false };

describe("a worker alive while its answer is awaited", () => {
  it("is given up on, named, once it says three times in a row that it has nothing to do", async () => {
    const link = new WorkerLink("h1", 0, workers);
    const answer = link.expect("armed");
    link.receive(alive(false));
    link.receive(alive(false));
    expect(link.dead).toBeUndefined();
    link.receive(alive(false));
    await expect(answer).rejects.toThrow(
      /host h1: its worker is alive but had nothing to do for 3 s .*a message was lost/,
    );
  });

  it("is waited for as long as it says it is busy, and an idle streak starts again after a busy one", async () => {
    const link = new WorkerLink("h1", 0, workers);
    const answer = link.expect("armed");
    for (let i = 0; i < 100; i++) link.receive(alive(true));
    link.receive(alive(false));
    link.receive(alive(false));
    link.receive(alive(true));
    link.receive(alive(false));
    link.receive(alive(false));
    link.receive(armed);
    await expect(answer).resolves.toMatchObject({ t: "armed" });
    expect(link.dead).toBeUndefined();
  });

  it("is not judged while nothing is awaited from it", () => {
    const link = new WorkerLink("h1", 0, workers);
    for (let i = 0; i < 10; i++) link.receive(alive(false));
    expect(link.dead).toBeUndefined();
  });
});
