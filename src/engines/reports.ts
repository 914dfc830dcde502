/**
 * The report facts of an engine named in a result row, which may come from elsewhere (undefined when
 * unknown). From the registry's facts: the report, and its row-reading threads, load no engine's code.
 */
import type { EngineReport } from "../engine-facts/types.js";
import { ENGINE_PLUGINS } from "../engine-facts/registry.js";

export const engineReport = (engine: string): EngineReport | undefined =>
  Object.hasOwn(ENGINE_PLUGINS, engine)
    ? ENGINE_PLUGINS[engine as keyof typeof ENGINE_PLUGINS].report
    : undefined;
