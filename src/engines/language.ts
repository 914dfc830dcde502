/**
 * The spec read with this build's engines: plan/load.ts's front given the registry's table. What every
 * command and test calls; the layers below take the table as an argument.
 */
import { loadSpecWith, validateTextWith, type ValidateOptions, type Validated } from "../plan/load.js";
import { ENGINE_FACTS } from "./index.js";

export type { ValidateOptions, Validated };

export const loadSpec = (file: string, options: ValidateOptions = {}): Promise<Validated> =>
  loadSpecWith(ENGINE_FACTS, file, options);

export const validateText = (file: string, text: string, options: ValidateOptions = {}): Validated =>
  validateTextWith(ENGINE_FACTS, file, text, options);
