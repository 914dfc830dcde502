/** Each registered engine's folder exports the descriptor of that engine, loaded by name. */
import { describe, expect, it } from "vitest";
import { ENGINE_FACTS, ENGINE_NAMES, ENGINES, loadEngine } from "../../src/engines/index.js";
import { defaultEngine } from "../../src/spec/engines.js";
import { TARGET_KINDS } from "../../src/spec/schema.js";

describe("the engine registry", () => {
  it("loads, for every engine it names, the descriptor its folder exports, with every hook", async () => {
    expect(ENGINE_NAMES).toEqual(Object.keys(ENGINES));
    expect(Object.keys(ENGINE_FACTS)).toEqual(ENGINE_NAMES);
    for (const name of ENGINE_NAMES) {
      const engine = await loadEngine(name);
      expect(engine.engine, name).toBe(name);
      for (const hook of ["shellLibrary", "shellCase", "executor"] as const)
        expect(typeof engine[hook], `${name}.${hook}`).toBe("function");
      expect(Array.isArray(engine.tools) && Array.isArray(engine.libraries), name).toBe(true);
    }
  });

  it("names one default engine for every target kind, one that drives it", () => {
    for (const kind of TARGET_KINDS) {
      const defaults = ENGINE_NAMES.filter((name) => ENGINE_FACTS[name]!.defaultFor.includes(kind));
      expect(defaults, kind).toHaveLength(1);
      expect(defaultEngine(ENGINE_FACTS, kind)).toBe(defaults[0]);
      expect(ENGINE_FACTS[defaults[0]!]!.targetKinds, kind).toContain(kind);
    }
  });
});
