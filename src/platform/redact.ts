/**
 * Credentials in a URL's userinfo (`http://KEY:SECRET@host`) never reach a screen or a file: every URL
 * benchspec shows or stores goes through `redactUrls`. The connection itself keeps the URL as written.
 */

/** `scheme://userinfo@`: the userinfo ends at the first "/", "?", "#" or whitespace, or at its "@". */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"']*)@/gi;
const ENV_REF = /\$\{env:[^}]*\}/g;

export const REDACTED_USERINFO = "***";

/** `text` with the userinfo of every URL in it replaced by ***. */
export function redactUrls(text: string): string {
  return text.replace(USERINFO, `$1${REDACTED_USERINFO}@`);
}

/**
 * Whether `text` (a spec value) holds a URL whose userinfo is written literally: `${env:NAME}` references
 * are read at run time and are not credentials written into the spec.
 */
export function hasLiteralUrlCredentials(text: string): boolean {
  return [...text.matchAll(USERINFO)].some(
    ([, , userinfo]) => userinfo!.replace(ENV_REF, "").replace(/:/g, "") !== "",
  );
}
