/** Where the package's own files live (package.json, schema/, templates/), from src/ or dist/ alike. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** This benchspec's version (package.json): what provenance records and hosts' workers must match. */
export const VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }
).version;
