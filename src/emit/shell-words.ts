/**
 * Spec strings as words of the compiled script. Literal text is single-quoted; each `${env:NAME}` reference
 * becomes a `"${NAME}"` expansion, so secrets are read at run time and never written into the script.
 */
import { BenchspecError } from "../platform/errors.js";
import { type ShellScriptWriter, shQuote } from "./writer.js";

/** The environment variable that places a target: BENCHSPEC_TARGET_<name, non-alphanumerics as "_">. */
export function targetEnvVar(name: string): string {
  return `BENCHSPEC_TARGET_${name.replace(/[^A-Za-z0-9]/g, "_")}`;
}

/**
 * A spec string as one shell word: literal text single-quoted, each `${env:NAME}` a double-quoted expansion
 * that stops the script with a clear message when the variable is unset or empty.
 */
export function shellWord(text: string, what: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    if (match.index > last) parts.push(shQuote(text.slice(last, match.index)));
    parts.push(envExpansion(match[1]!, what));
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(shQuote(text.slice(last)));
  return parts.join("");
}

/**
 * `LHS=<shell word of a spec string>`. A `$` or a backtick in the user's text is literal inside its single
 * quotes; shellcheck's SC2016 ("expressions don't expand in single quotes") is told that this is the intent.
 */
export function assignWord(w: ShellScriptWriter, lhs: string, text: string, what: string): void {
  if (/[$`]/.test(text.replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g, ""))) {
    w.line("# shellcheck disable=SC2016 # the user's value, single-quoted on purpose: never expanded");
  }
  const word = shellWord(text, what);
  // A bare word is quoted all the same: shellcheck reads `A[k]=us-east-1` as arithmetic (SC2100).
  w.line(`${lhs}=${BARE_WORD.test(word) ? `'${word}'` : word}`);
}

/** What shQuote leaves unquoted: nothing a shell would expand or split. */
const BARE_WORD = /^[A-Za-z0-9_./=:@%+,-]+$/;

function envExpansion(name: string, what: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new BenchspecError("internal", `bad environment variable name ${name}`);
  if (!/^[A-Za-z0-9 _.,-]*$/.test(what)) throw new BenchspecError("internal", `bad message ${what}`);
  return `"\${${name}:?is not set or empty, needed for ${what}}"`;
}

/** Only `${env:NAME}` and nothing else: the one form of a secret that may be referenced from the script. */
const PURE_ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The expansion of `text` when it is a bare `${env:NAME}`, else undefined (a literal the script must not copy). */
export function pureEnvExpansion(text: string, what: string): string | undefined {
  const ref = PURE_ENV_REF.exec(text);
  return ref ? envExpansion(ref[1]!, what) : undefined;
}
