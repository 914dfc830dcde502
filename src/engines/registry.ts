/**
 * The engine registry: one entry per engine, each from its own folder — its language facts (read by the
 * spec layer), its report facts, and its descriptor, loaded on demand (index.ts: compile, run and the
 * report's charts take it; `validate` and `plan` never load it). Adding an engine is its folder and one
 * entry here; the order is the language's (the JSON Schema lists the engines so).
 * Data only, below the language: it imports the facts files and nothing above them.
 */
import { ddLanguage } from "./dd/language.js";
import { ddReport } from "./dd/report.js";
import { fioLanguage } from "./fio/language.js";
import { fioReport } from "./fio/report.js";
import { ipfsLanguage } from "./ipfs/language.js";
import { loadReport } from "./load/report.js";
import { s3Language } from "./s3/language.js";

export const ENGINE_PLUGINS = {
  fio: {
    language: fioLanguage,
    report: fioReport,
    load: async () => (await import("./fio/index.js")).fioEngine,
  },
  dd: { language: ddLanguage, report: ddReport, load: async () => (await import("./dd/index.js")).ddEngine },
  s3: {
    language: s3Language,
    report: loadReport,
    load: async () => (await import("./s3/index.js")).s3Engine,
  },
  ipfs: {
    language: ipfsLanguage,
    report: loadReport,
    load: async () => (await import("./ipfs/index.js")).ipfsEngine,
  },
};
