/** The backend registry: one backend per engine; a missing entry is a type error. */
import type { EngineName } from "../spec/words.js";
import { ddBackend } from "./dd/index.js";
import { fioBackend } from "./fio/index.js";
import { ipfsBackend } from "./ipfs/index.js";
import { s3Backend } from "./s3/index.js";
import type { Backend } from "./types.js";

export const BACKENDS: Record<EngineName, Backend> = {
  fio: fioBackend,
  dd: ddBackend,
  s3: s3Backend,
  ipfs: ipfsBackend,
};
