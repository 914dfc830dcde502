// Copies the non-TypeScript files the modules read at run time (the compiled script's .sh parts, the payload
// kernel's .wasm) from src/ into dist/, beside the modules that read them. Run by `npm run build` after tsc.
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
for (const entry of readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(sh|wasm)$/.test(entry.name)) continue;
  const from = join(entry.parentPath, entry.name);
  cpSync(from, join(root, "dist", from.slice(join(root, "src").length)));
}
