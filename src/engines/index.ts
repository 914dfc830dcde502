/**
 * The engine registry: one entry per engine, naming its folder's facts (language and report, plain data
 * that `validate` and `plan` read; the call schema of an engine that compiles to the sdk format) and the
 * loader of its descriptor (`./<name>/index.ts` exports it as `engine`: compile hooks and the executor,
 * loaded only when a stage needs them). Adding an engine is its folder and one entry here; the order is the
 * language's (the JSON Schema lists the engines so). The layers below take the language facts as the table
 * `ENGINE_FACTS`, never this file.
 */
import type { z } from "zod";
import type { EngineInfo, EngineTable } from "../spec/engines.js";
import { ddLanguage, ddReport } from "./dd/facts.js";
import { fioLanguage, fioReport } from "./fio/facts.js";
import { ipfsLanguage } from "./ipfs/facts.js";
import { IpfsSdkDocumentSchema } from "./ipfs/sdk-schema.js";
import { loadReport } from "./load/report-facts.js";
import type { EngineReport } from "./report-facts.js";
import { s3Language } from "./s3/facts.js";
import { S3SdkDocumentSchema } from "./s3/sdk-schema.js";
import type { Engine } from "./types.js";

interface Registered {
  language: EngineInfo;
  report: EngineReport;
  /** Its call schema in the sdk format, for an engine whose cases compile to sdk call sequences. */
  sdk?: z.ZodObject;
  load(): Promise<{ engine: Engine }>;
}

export const ENGINES = {
  fio: { language: fioLanguage, report: fioReport, load: () => import("./fio/index.js") },
  dd: { language: ddLanguage, report: ddReport, load: () => import("./dd/index.js") },
  s3: {
    language: s3Language,
    report: loadReport,
    sdk: S3SdkDocumentSchema,
    load: () => import("./s3/index.js"),
  },
  ipfs: {
    language: ipfsLanguage,
    report: loadReport,
    sdk: IpfsSdkDocumentSchema,
    load: () => import("./ipfs/index.js"),
  },
} satisfies Record<string, Registered>;

export type EngineName = keyof typeof ENGINES;
export const ENGINE_NAMES = Object.keys(ENGINES) as EngineName[];
export const isEngineName = (name: string): name is EngineName => Object.hasOwn(ENGINES, name);

/** The language facts of every engine, by name: what the spec and the plan are given. */
export const ENGINE_FACTS: EngineTable = Object.fromEntries(
  ENGINE_NAMES.map((name) => [name, ENGINES[name].language]),
);

/** The language facts of an engine a plan names (validated against this table, so it is known here). */
export function engineFacts(name: string): EngineInfo {
  if (!isEngineName(name)) throw new Error(`no engine named ${name}`);
  return ENGINES[name].language;
}

/** The report facts of an engine named in a result row, which may come from elsewhere (undefined when unknown). */
export const engineReport = (name: string): EngineReport | undefined =>
  isEngineName(name) ? ENGINES[name].report : undefined;

export const loadEngine = async (name: string): Promise<Engine> => {
  if (!isEngineName(name)) throw new Error(`no engine named ${name}`);
  return (await ENGINES[name].load()).engine;
};

/** The descriptors of these engines, by name (each loaded once, however often it is named). */
export async function loadEngines(names: Iterable<string>): Promise<Record<string, Engine>> {
  const unique = [...new Set(names)];
  const loaded = await Promise.all(unique.map(loadEngine));
  return Object.fromEntries(unique.map((name, i) => [name, loaded[i]!]));
}

/** Every engine's descriptor (what a run's provenance lists: every client library benchspec is built on). */
export const loadAllEngines = () => loadEngines(ENGINE_NAMES);
