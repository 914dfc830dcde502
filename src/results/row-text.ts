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

/** A row's repetition, as an index of a file's rows needs it (the row itself not parsed). */
export interface RowIdentity {
  case: string;
  repetition: number;
  warmup: boolean;
}

/** What follows a head in benchspec's layout: the repetition, then whether it is a warm-up. */
const REPETITION = /,"repetition":(\d+),"warmup":(true|false)[,}]/y;

export class RowTextParser {
  /** Per case, the start of its rows' text. */
  private readonly heads = new Map<string, RowHead>();

  parse(text: string): unknown {
    const head = this.headOf(text);
    const rest = head && restOf(text, head);
    return rest ? Object.assign(rest, head.fields) : JSON.parse(text);
  }

  /**
   * The line as its case's head (the same object for every row of the case) and the rest of the row, not
   * yet put together (a checker can check the head once); a line parsed whole is all `rest`.
   */
  parseParts(text: string): { head?: Record<string, unknown>; rest: Record<string, unknown> } {
    const head = this.headOf(text);
    const rest = head && restOf(text, head);
    return rest ? { head: head.fields, rest } : { rest: JSON.parse(text) as Record<string, unknown> };
  }

  /**
   * The line's case and repetition read from its text where it has benchspec's layout and its case's head
   * is known (the rest of the line is not parsed, so not checked: whoever reads the row parses it); else
   * the line parsed whole, for the caller to check.
   */
  identity(text: string): RowIdentity | unknown {
    const head = this.headOf(text);
    if (head && typeof head.fields.case === "string") {
      REPETITION.lastIndex = head.prefix.length;
      const match = REPETITION.exec(text);
      if (match) return { case: head.fields.case, repetition: Number(match[1]), warmup: match[2] === "true" };
    }
    return JSON.parse(text);
  }

  /** The head the line starts with, followed by `,"repetition":` (made from the line if its case has none). */
  private headOf(text: string): RowHead {
    if (!text.startsWith('{"v":1,"source":"run",') && !text.startsWith('{"v":1,"source":"shell",'))
      return null;
    const at = text.indexOf('"case":"');
    const end = at < 0 ? -1 : text.indexOf('"', at + 8);
    if (end < 0) return null;
    const id = text.slice(at + 8, end);
    const head = this.heads.get(id);
    if (head === undefined) {
      // The case's first row: its head is made (and its tail parsed with the whole line, as before).
      this.heads.set(id, headOf(text, end));
      return null;
    }
    return head !== null &&
      // (slice and ===: a compare of the bytes; startsWith goes character by character)
      text.slice(0, head.prefix.length) === head.prefix &&
      text.startsWith(',"repetition":', head.prefix.length)
      ? head
      : null;
  }
}

/** The row less its head, if it has the measured fields (else it is parsed whole, which reports an error). */
function restOf(text: string, head: NonNullable<RowHead>): Record<string, unknown> | undefined {
  try {
    const rest = JSON.parse(`{${text.slice(head.prefix.length + 1)}`) as Record<string, unknown>;
    return typeof rest.ok === "boolean" &&
      typeof rest.throughput === "number" &&
      typeof rest.iops === "number" &&
      typeof rest.seconds === "number"
      ? rest
      : undefined;
  } catch {
    return undefined;
  }
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
