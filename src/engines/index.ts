/** The engine registry: one descriptor per engine, each from its folder; a missing entry is a type error. */
import type { EngineName } from "../spec/words.js";
import { ddEngine } from "./dd/index.js";
import { fioEngine } from "./fio/index.js";
import { ipfsEngine } from "./ipfs/index.js";
import { s3Engine } from "./s3/index.js";
import type { Engine } from "./types.js";

export const ENGINE_REGISTRY: Record<EngineName, Engine> = {
  fio: fioEngine,
  dd: ddEngine,
  s3: s3Engine,
  ipfs: ipfsEngine,
};
