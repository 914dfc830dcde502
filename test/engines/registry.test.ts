/** Each registered engine's folder exports the descriptor of that engine, loaded by name. */
import { describe, expect, it } from "vitest";
import { ENGINE_PLUGINS } from "../../src/engine-facts/registry.js";
import { loadEngine } from "../../src/engines/index.js";
import { ENGINE_NAMES } from "../../src/spec/words.js";

describe("the engine registry", () => {
  it("loads, for every engine it names, the descriptor its folder exports, with every hook", async () => {
    expect(ENGINE_NAMES).toEqual(Object.keys(ENGINE_PLUGINS));
    for (const name of ENGINE_NAMES) {
      const engine = await loadEngine(name);
      expect(engine.engine, name).toBe(name);
      for (const hook of ["shellLibrary", "shellCase", "executor"] as const)
        expect(typeof engine[hook], `${name}.${hook}`).toBe("function");
      expect(Array.isArray(engine.tools) && Array.isArray(engine.libraries), name).toBe(true);
    }
  });
});
