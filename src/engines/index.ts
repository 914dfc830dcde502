/**
 * The engines' descriptors, each loaded on demand from its folder (`./<name>/index.ts` exports it as
 * `engine`). The engines are named by the registry (engine-facts/registry.ts); a loader missing here is a
 * type error.
 */
import { ENGINE_PLUGINS } from "../engine-facts/registry.js";
import type { EngineName } from "../spec/words.js";
import type { Engine } from "./types.js";

const LOADERS: Record<EngineName, () => Promise<{ engine: Engine }>> = {
  fio: () => import("./fio/index.js"),
  dd: () => import("./dd/index.js"),
  s3: () => import("./s3/index.js"),
  ipfs: () => import("./ipfs/index.js"),
};

export const loadEngine = async (name: EngineName): Promise<Engine> => (await LOADERS[name]()).engine;

/** The descriptors of these engines, by name (each loaded once, however often it is named). */
export async function loadEngines(names: Iterable<EngineName>): Promise<Record<EngineName, Engine>> {
  const unique = [...new Set(names)];
  const loaded = await Promise.all(unique.map(loadEngine));
  return Object.fromEntries(unique.map((name, i) => [name, loaded[i]!])) as Record<EngineName, Engine>;
}

/** Every engine's descriptor (what a run's provenance lists: every client library benchspec is built on). */
export const loadAllEngines = () => loadEngines(Object.keys(ENGINE_PLUGINS) as EngineName[]);
