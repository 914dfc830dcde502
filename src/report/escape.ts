/**
 * Every way a string leaves the report builder, each with its own escaping. User strings (names,
 * descriptions, labels, paths, errors) only ever pass through these.
 */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text content and (double- or single-quoted) attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * JSON inside `<script type="application/json">`: `<`, `>` and `&` as \u escapes (so `</script>` and
 * `<!--` cannot end or change the script element), and U+2028/U+2029 (line terminators in older JS).
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A data: URI for an attribute value, percent-encoding only what a URI or a quoted attribute cannot hold. */
export function dataUri(mime: string, text: string): string {
  return `data:${mime};charset=utf-8,${text.replace(/[%#"'<>&\s]/g, (c) => encodeURIComponent(c))}`;
}

/**
 * A library's source inside a classic `<script>` element: it must not contain `</script` (which ends the
 * element) or `<!--` (which changes how the parser reads the rest). The vendored builds contain neither;
 * should a future version, the report refuses to build rather than emit a broken page.
 */
export function inlineScript(name: string, source: string): string {
  if (/<\/script|<!--/i.test(source))
    throw new Error(`${name} cannot be inlined: it contains "</script" or "<!--"`);
  return source;
}

/** A CSV cell: quoted when needed; text starting with = + - @ is prefixed so spreadsheets do not run it. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A file name from a title: letters, digits, dots, dashes. */
export function fileName(title: string): string {
  return (
    title
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9.-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "chart"
  );
}
