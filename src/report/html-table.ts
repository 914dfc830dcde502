/** An HTML table of the report: escaped cells, cut beyond MAX_TABLE_ROWS rows. */
import { escapeHtml } from "./escape.js";

/** Above this many rows an HTML table is cut (each row is about 0.4 kB of the page). */
export const MAX_TABLE_ROWS = 1000;

export type Cell = string | { html: string; className?: string; title?: string };

export function table(header: readonly Cell[], rows: readonly Cell[][], className = ""): string {
  const cell = (c: Cell, tag: "td" | "th") =>
    typeof c === "string"
      ? `<${tag}>${escapeHtml(c)}</${tag}>`
      : `<${tag}${c.className ? ` class="${escapeHtml(c.className)}"` : ""}${c.title ? ` title="${escapeHtml(c.title)}"` : ""}>${c.html}</${tag}>`;
  const cut = rows.length > MAX_TABLE_ROWS;
  const shown = cut ? rows.slice(0, MAX_TABLE_ROWS) : rows;
  return [
    `<div class="table-wrap"><table${className ? ` class="${escapeHtml(className)}"` : ""}>`,
    `<thead><tr>${header.map((h) => cell(h, "th")).join("")}</tr></thead>`,
    `<tbody>${shown.map((r) => `<tr>${r.map((c) => cell(c, "td")).join("")}</tr>`).join("\n")}</tbody>`,
    `</table></div>`,
    cut
      ? `<p class="note">First ${MAX_TABLE_ROWS} of ${rows.length} rows; the Export section says where all of them are.</p>`
      : "",
  ].join("");
}

export const num = (text: string, title?: string): Cell => ({
  html: escapeHtml(text),
  className: "num",
  ...(title && { title }),
});
