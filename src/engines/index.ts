/** An engine's descriptor, loaded from its folder through the registry (registry.ts). */
import type { EngineName } from "../spec/words.js";
import { ENGINE_PLUGINS } from "./registry.js";
import type { Engine } from "./types.js";

export const loadEngine = (name: EngineName): Promise<Engine> => ENGINE_PLUGINS[name].load();

/** The descriptors of these engines, by name (each loaded once, however often it is named). */
export async function loadEngines(names: Iterable<EngineName>): Promise<Record<EngineName, Engine>> {
  const unique = [...new Set(names)];
  const loaded = await Promise.all(unique.map(loadEngine));
  return Object.fromEntries(unique.map((name, i) => [name, loaded[i]!])) as Record<EngineName, Engine>;
}

/** Every engine's descriptor (what a run's provenance lists: every client library benchspec is built on). */
export const loadAllEngines = () => loadEngines(Object.keys(ENGINE_PLUGINS) as EngineName[]);
