/**
 * Text from outside benchspec (a host's name, a file's contents, a server's error) printed to a terminal
 * must not move the cursor, retitle the window or forge lines: its control characters are shown escaped
 * (ESC as \u001b). A message's own line breaks stay when `lines` is set.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE_BUT_LINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

export function printable(text: string, { lines = false } = {}): string {
  return text.replace(
    lines ? UNPRINTABLE_BUT_LINES : UNPRINTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
