/**
 * The engine registry: one entry per engine — its language facts (read by the spec layer) and what the
 * report says of its rows. Adding an engine is its code in `src/engines/<name>/` (index.ts exports its
 * `engine` descriptor, loaded on demand by engines/index.ts, whose loader the type checker then asks for),
 * its facts in this folder, and one entry here; the order is the language's (the JSON Schema lists the
 * engines so).
 * Data only, below the language: it imports nothing above this folder.
 */
import { ddLanguage } from "./dd.js";
import { ddReport } from "./dd-report.js";
import { fioLanguage } from "./fio.js";
import { fioReport } from "./fio-report.js";
import { ipfsLanguage } from "./ipfs.js";
import { loadReport } from "./load-report.js";
import { s3Language } from "./s3.js";

export const ENGINE_PLUGINS = {
  fio: { language: fioLanguage, report: fioReport },
  dd: { language: ddLanguage, report: ddReport },
  s3: { language: s3Language, report: loadReport },
  ipfs: { language: ipfsLanguage, report: loadReport },
};
