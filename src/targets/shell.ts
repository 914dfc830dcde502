/** What the shell code of every target kind shares: where a target's setup finds its address. */
import { shQuote, type ShellScriptWriter } from "../emit/writer.js";
import { assignWord } from "../emit/shell-words.js";
import { hasLiteralUrlCredentials } from "../platform/redact.js";
import type { ShellTarget } from "./types.js";

/**
 * `local <local>=$BENCHSPEC_TARGET_<name>`; when that is unset or empty, the spec's value (`specValue`), or
 * a stop with `unplaced` (the script cannot launch a server the spec would have benchspec launch). A spec
 * value with credentials in its URL is never copied: the script then needs the variable.
 */
export function placeFromEnvironment(
  w: ShellScriptWriter,
  t: ShellTarget<unknown>,
  local: string,
  fallback: { specValue: string | undefined; key: string; unplaced?: string },
): void {
  w.line(`local ${local}=\${${t.variable}:-}`);
  const { specValue, key } = fallback;
  const copied = specValue !== undefined && !hasLiteralUrlCredentials(specValue);
  const unplaced = copied
    ? undefined
    : specValue !== undefined
      ? `target ${t.name}: the spec's ${key} holds credentials and is not copied into this script; set ${t.variable} to it`
      : fallback.unplaced;
  if (copied) {
    w.block(`if [[ -z $${local} ]]; then`, () => assignWord(w, local, specValue, `${t.what} ${key}`), "fi");
  } else if (unplaced !== undefined) {
    w.block(`if [[ -z $${local} ]]; then`, () => w.line(`bs_die ${shQuote(unplaced)}`), "fi");
  }
}
