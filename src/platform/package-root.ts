/** Where the package's own files live (package.json, schema/, templates/), from src/ or dist/ alike. */
import { fileURLToPath } from "node:url";

export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));
