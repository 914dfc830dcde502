/** What the shell code of every target kind shares: where a target's setup finds its address. */
import type { ShellScriptWriter } from "../compile/writer.js";
import { assignWord } from "../compile/shell/words.js";
import type { ShellTarget } from "./types.js";

/**
 * `local <local>=$BENCHSPEC_TARGET_<name>`; when that is unset or empty, the spec's value (`specValue`), or
 * what `otherwise` writes (e.g. stopping with a message: the script cannot launch a server).
 */
export function placeFromEnvironment(
  w: ShellScriptWriter,
  t: ShellTarget<unknown>,
  local: string,
  fallback: { specValue: string | undefined; key: string; otherwise?: () => void },
): void {
  w.line(`local ${local}=\${${t.variable}:-}`);
  const { specValue, key, otherwise } = fallback;
  if (specValue !== undefined) {
    w.block(`if [[ -z $${local} ]]; then`, () => assignWord(w, local, specValue, `${t.what} ${key}`), "fi");
  } else if (otherwise) {
    w.block(`if [[ -z $${local} ]]; then`, otherwise, "fi");
  }
}
