/**
 * The bash the compiled script carries lives in .sh files beside the TypeScript that uses it, so shellcheck
 * reads them as they are. A file's own header — every line up to its first blank line (the `shellcheck
 * shell=bash` directive, what the file is) — is not copied; the rest is copied verbatim. The build copies
 * the .sh files next to the compiled modules (scripts/copy-assets.mjs).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ShellScriptWriter } from "./writer.js";

const cache = new Map<string, string>();

/** The body of the .sh file at `url` (e.g. `new URL("./runtime.sh", import.meta.url)`), without its header. */
export function shellAsset(url: URL): string {
  const path = fileURLToPath(url);
  let body = cache.get(path);
  if (body === undefined) {
    const text = readFileSync(path, "utf8");
    const blank = text.indexOf("\n\n");
    if (!text.startsWith("#") || blank < 0) throw new Error(`${path}: a shell asset starts with a header`);
    body = text.slice(blank + 2).replace(/\n$/, "");
    cache.set(path, body);
  }
  return body;
}

/** A Engine.shellLibrary that writes the .sh file at `url` (an engine's bash functions) into the script. */
export function shellLibrary(url: URL): (w: ShellScriptWriter) => void {
  return (w) => {
    w.code(shellAsset(url));
  };
}
