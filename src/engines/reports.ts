/**
 * What the report needs to know about each engine (its facts live in the engine's folder); a missing
 * engine is a type error. Apart from the engine registry (index.ts) so that the report, and its
 * row-reading threads, load none of the engines' compile code.
 */
import type { EngineName } from "../spec/words.js";
import { ddReport } from "./dd/report.js";
import { fioReport } from "./fio/report.js";
import { loadReport } from "./load/report.js";
import type { EngineReport } from "./types.js";

const REPORTS: Record<EngineName, EngineReport> = {
  fio: fioReport,
  dd: ddReport,
  s3: loadReport,
  ipfs: loadReport,
};

/** The report facts of an engine named in a result row, which may come from elsewhere (undefined when unknown). */
export function engineReport(engine: string): EngineReport | undefined {
  return Object.hasOwn(REPORTS, engine) ? REPORTS[engine as EngineName] : undefined;
}
