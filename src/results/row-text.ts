/**
 * JSON.parse of a result row's line, about twice as fast for benchspec's own rows (run and compiled script):
 * they are written with a fixed key order — identity, params, then "repetition" and the measurements — so a
 * row that starts with the same text as the first row of its case up to `,"repetition":` has the same
 * identity and params, and only the part from "repetition" on is parsed (the identity's fields, `params`
 * included, are shared by the rows of a case: read them, do not change them). `,"repetition":` cannot
 * occur inside a JSON string (its quotes would be escaped), so its first occurrence is the key. What a line
 * parses to depends on that line only (not on the lines before it), so ranges of a file parse alike on any
 * thread. Any other layout, or a tail without the measured fields, is parsed whole.
 */

/**
 * What every row of a case repeats: the text of its first row up to `,"repetition":`, and that text
 * parsed (null: the case's first row did not have that layout).
 */
type RowHead = { prefix: string; fields: Record<string, unknown> } | null;

export class RowTextParser {
  /** Per case, the start of its rows' text. */
  private readonly heads = new Map<string, RowHead>();

  parse(text: string): unknown {
    return parseRowLine(text, this.heads);
  }
}

function parseRowLine(text: string, heads: Map<string, RowHead>): unknown {
  if (text.startsWith('{"v":1,"source":"run",') || text.startsWith('{"v":1,"source":"shell",')) {
    const at = text.indexOf('"case":"');
    const end = at < 0 ? -1 : text.indexOf('"', at + 8);
    if (end > 0) {
      const id = text.slice(at + 8, end);
      const head = heads.get(id);
      if (head === undefined) {
        heads.set(id, headOf(text, end));
      } else if (
        head !== null &&
        // (slice and ===: a compare of the bytes; startsWith goes character by character)
        text.slice(0, head.prefix.length) === head.prefix &&
        text.startsWith(',"repetition":', head.prefix.length)
      ) {
        try {
          const row = JSON.parse(`{${text.slice(head.prefix.length + 1)}`) as Record<string, unknown>;
          if (
            typeof row.ok === "boolean" &&
            typeof row.throughput === "number" &&
            typeof row.iops === "number" &&
            typeof row.seconds === "number"
          ) {
            return Object.assign(row, head.fields);
          }
        } catch {
          // parsed whole below, which reports the error
        }
      }
    }
  }
  return JSON.parse(text);
}

function headOf(text: string, caseEnd: number): RowHead {
  const tail = text.indexOf(',"repetition":', caseEnd);
  if (tail < 0) return null;
  const prefix = text.slice(0, tail);
  try {
    const fields = JSON.parse(`${prefix}}`) as Record<string, unknown>;
    return typeof fields.params === "object" && fields.params !== null ? { prefix, fields } : null;
  } catch {
    return null;
  }
}
