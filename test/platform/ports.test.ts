import { describe, expect, it } from "vitest";
import { freePorts } from "../../src/platform/ports.js";

describe("free ports for one server", () => {
  it("are all different, also when asked for many at once (a closed port is often handed out again)", async () => {
    for (let i = 0; i < 20; i++) {
      const ports = await freePorts(Array.from({ length: 8 }, () => "127.0.0.1"));
      expect(new Set(ports).size).toBe(8);
    }
  });
});
