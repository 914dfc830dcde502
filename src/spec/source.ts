/**
 * YAML loading with source positions. Guards come before any interpretation: file size, nesting depth,
 * node count, alias expansion, duplicate and prototype-polluting keys. The result keeps the parsed document
 * so every later stage can point at `file:line:column`.
 */
import {
  visit,
  type Alias,
  type YAMLError,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Scalar,
  type Document,
  type Node,
} from "yaml";
import type { DiagnosticCode } from "../diagnostics/codes.js";
import type { Diagnostic, SpecPath } from "../diagnostics/diagnostic.js";

export const LIMITS = { bytes: 1024 * 1024, depth: 32, nodes: 100_000 } as const;

/** Keys that could alter objects; refused in files and in --set paths and values alike. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export interface SpecSource {
  file: string;
  text: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

export type LoadResult = { source: SpecSource; value: unknown; diagnostics: Diagnostic[] };

export function parseSpecText(file: string, text: string): LoadResult {
  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const at = (code: DiagnosticCode, message: string, offset: number, path: SpecPath = []): Diagnostic => {
    const { line, col } = lineCounter.linePos(offset);
    return { code, severity: "error", message, path, file, line, column: col };
  };
  if (Buffer.byteLength(text) > LIMITS.bytes) {
    const doc = parseDocument("");
    return {
      source: { file, text, doc, lineCounter },
      value: undefined,
      diagnostics: [
        {
          code: "file-too-large",
          severity: "error",
          message: `spec is larger than ${LIMITS.bytes} bytes`,
          path: [],
          file,
          line: 0,
          column: 0,
        },
      ],
    };
  }
  const deepAt = flowDepthExceeded(text);
  if (deepAt !== undefined) {
    const doc = parseDocument("");
    withLines(lineCounter, text);
    return {
      source: { file, text, doc, lineCounter },
      value: undefined,
      diagnostics: [at("too-deep", `nested deeper than ${LIMITS.depth} levels`, deepAt)],
    };
  }
  const doc = parseDocument(text, {
    lineCounter,
    // Duplicate keys are found below, in linear time: the library's check scans each map per key (60,000
    // vars took 25 s).
    uniqueKeys: false,
    prettyErrors: false,
    merge: false,
    strict: true,
  });
  const source: SpecSource = { file, text, doc, lineCounter };
  for (const error of [...doc.errors, ...doc.warnings])
    diagnostics.push(at("yaml-syntax", yamlMessage(error), error.pos[0]));
  for (const offset of duplicateKeyOffsets(doc)) {
    // The path of the mapping that holds the key twice: "workloads[0]: the key "bs" appears twice".
    const path = mappingPathAt(doc.contents, offset);
    const key = /^("[^"]*"|'[^']*'|[^\s:,{}[\]]+)/.exec(text.slice(offset))?.[1];
    const message = key
      ? `the key "${key}" appears twice in this mapping`
      : "a key appears twice in this mapping";
    diagnostics.push(at("duplicate-key", message, offset, path));
  }
  const { version, explicit } = doc.directives?.yaml ?? { version: "1.2", explicit: false };
  if (explicit && version !== "1.2") {
    // YAML 1.1 reads yes/no/on/off as booleans and 1_000 as a number: the language is defined on 1.2 only.
    const message = `benchspec reads YAML 1.2 only; this document declares %YAML ${version} (remove the directive)`;
    diagnostics.push(at("yaml-version", message, Math.max(0, text.indexOf("%YAML"))));
  }
  if (diagnostics.length > 0) return { source, value: undefined, diagnostics };

  diagnostics.push(...checkStructure(doc.contents, at));
  if (diagnostics.length > 0) return { source, value: undefined, diagnostics };
  const dangling = danglingAliases(doc).map((alias) =>
    at(
      "yaml-syntax",
      `the alias *${alias.source} refers to no anchor &${alias.source} defined before it (a value that starts with "*" must be quoted: "*…")`,
      alias.range?.[0] ?? 0,
    ),
  );
  if (dangling.length > 0) return { source, value: undefined, diagnostics: dangling };
  const bomb = aliasExpansionExceeded(doc);
  if (bomb !== undefined) {
    const message = `aliases expand the document beyond ${LIMITS.nodes} values (an alias bomb?)`;
    return { source, value: undefined, diagnostics: [at("alias-limit", message, bomb)] };
  }
  return { source, value: doc.toJS({ maxAliasCount: -1 }), diagnostics };
}

/** Where each key that repeats an earlier key of its mapping starts (equal scalar values, as YAML compares). */
function duplicateKeyOffsets(doc: Document): number[] {
  const offsets: number[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) offsets.push(pair.key.range?.[0] ?? 0);
        else seen.add(pair.key.value);
      }
    },
  });
  return offsets;
}

/** The library's messages, said in terms of the spec. */
function yamlMessage(error: YAMLError): string {
  const first = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (error.code === "MULTIPLE_DOCS")
    return 'a spec is one YAML document; remove the "---" separator and what follows';
  if (/Nested mappings are not allowed in compact mappings/.test(first)) {
    return "a key is indented more than the keys beside it, so YAML reads it as part of the value before it";
  }
  return first;
}

/** The spec path of the innermost mapping whose range holds `offset` (iterative: the document may be deep). */
function mappingPathAt(root: Node | null, offset: number): SpecPath {
  const inside = (node: unknown) => {
    const range = (node as Node | null)?.range;
    return range !== undefined && range !== null && offset >= range[0] && offset < range[2];
  };
  let node: unknown = root;
  let mapping: SpecPath = [];
  const path: (string | number)[] = [];
  for (let depth = 0; depth <= LIMITS.depth + 1 && node; depth++) {
    let next: unknown;
    if (isMap(node)) {
      mapping = [...path];
      for (const pair of node.items) {
        if (inside(pair.key)) break;
        if (inside(pair.value)) {
          path.push(String(isScalar(pair.key) ? pair.key.value : pair.key));
          next = pair.value;
          break;
        }
      }
    } else if (isSeq(node)) {
      const index = node.items.findIndex(inside);
      if (index >= 0) {
        path.push(index);
        next = node.items[index];
      }
    }
    node = next;
  }
  return mapping;
}

/** Offset where flow collections ([ and {) nest deeper than the limit, found before the parser recurses. */
function flowDepthExceeded(text: string): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  let comment = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (comment) {
      if (char === "\n") comment = false;
      continue;
    }
    if (quote) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === "#" && (i === 0 || /\s/.test(text[i - 1]!))) comment = true;
    else if (char === "[" || char === "{") {
      if (++depth > LIMITS.depth) return i;
    } else if (char === "]" || char === "}") depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/**
 * Offset of the alias at which the document, with every alias expanded, passes LIMITS.nodes values
 * (billion laughs). Sizes are computed once per anchored node, so the check itself stays linear.
 */
/** Aliases without an anchor before them: the YAML library would throw when turning them into values. */
function danglingAliases(doc: Document.Parsed): Alias[] {
  const dangling: Alias[] = [];
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) === undefined) dangling.push(alias);
    },
  });
  return dangling;
}

function aliasExpansionExceeded(doc: Document.Parsed): number | undefined {
  const sizes = new Map<unknown, number>();
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) return sizeOf(node.resolve(doc));
    if (sizes.has(node)) return sizes.get(node)!;
    sizes.set(node, 1); // a self-reference counts once instead of recursing forever
    let size = 1;
    if (isMap(node)) for (const pair of node.items) size += sizeOf(pair.key) + sizeOf(pair.value);
    else if (isSeq(node)) for (const item of node.items) size += sizeOf(item);
    sizes.set(node, Math.min(size, Number.MAX_SAFE_INTEGER));
    return size;
  };
  let total = 0;
  let found: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      total += sizeOf(alias);
      if (total > LIMITS.nodes) {
        found = alias.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
    Scalar() {
      total++;
    },
  });
  return found;
}

/** Fills a line counter without parsing (the parser is what must not run on this text). */
function withLines(lineCounter: LineCounter, text: string): void {
  let offset = 0;
  for (const line of text.split("\n")) {
    lineCounter.addNewLine(offset);
    offset += line.length + 1;
  }
}

type At = (code: DiagnosticCode, message: string, offset: number, path?: SpecPath) => Diagnostic;

/** Walks the tree once, iteratively (a deep document must not overflow the stack). */
function checkStructure(root: Node | null, at: At): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const stack: { node: unknown; depth: number; path: SpecPath }[] = [{ node: root, depth: 0, path: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (++nodes > LIMITS.nodes) return [at("too-many-nodes", `more than ${LIMITS.nodes} values`, 0)];
    const offset = (node as Node | null)?.range?.[0] ?? 0;
    if (depth > LIMITS.depth)
      return [at("too-deep", `nested deeper than ${LIMITS.depth} levels`, offset, path)];
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        if (typeof key !== "string" && typeof key !== "number") {
          diagnostics.push(
            at(
              "invalid-type",
              "keys must be plain strings",
              (pair.key as Node | null)?.range?.[0] ?? offset,
              path,
            ),
          );
          continue;
        }
        if (FORBIDDEN_KEYS.has(String(key))) {
          diagnostics.push(
            at("forbidden-key", `"${key}" is not allowed as a key`, (pair.key as Node).range![0], [
              ...path,
              String(key),
            ]),
          );
          continue;
        }
        stack.push({ node: pair.value, depth: depth + 1, path: [...path, String(key)] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) =>
        stack.push({ node: item, depth: depth + 1, path: [...path, index] }),
      );
    } else if (isPair(node)) {
      stack.push({ node: node.value, depth: depth + 1, path });
    }
  }
  return diagnostics;
}

/** Source position of a spec path: the key itself for `key` problems, otherwise the value. */
export function locate(
  source: SpecSource,
  path: SpecPath,
  target: "key" | "value" = "value",
  innerOffset?: number,
) {
  let node: unknown = source.doc.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const [index, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(source.doc);
    let next: unknown;
    let keyNode: Node | undefined;
    if (isMap(node)) {
      // Keys added by --set are plain values, not Scalar nodes.
      const pair = node.items.find(
        (item) => String(isScalar(item.key) ? item.key.value : item.key) === String(segment),
      );
      keyNode = pair?.key as Node | undefined;
      next = pair?.value;
    } else if (isSeq(node) && typeof segment === "number") {
      next = node.items[segment];
    }
    if (index === path.length - 1 && target === "key" && keyNode?.range) {
      offset = keyNode.range[0];
      break;
    }
    if (next && !(next as Node).range) {
      // Nodes made by --set have no place in the file: point at their key and say where they came from.
      if (keyNode?.range) offset = keyNode.range[0];
      const { line, col } = source.lineCounter.linePos(offset);
      return { line, column: col, fromOverride: true };
    }
    if (!next) {
      if (keyNode?.range) offset = keyNode.range[0];
      break;
    }
    node = next;
    offset = (next as Node).range![0];
  }
  if (innerOffset !== undefined && isScalar(node)) offset = offsetInScalar(source.text, node, innerOffset);
  const { line, col } = source.lineCounter.linePos(offset);
  return { line, column: col, fromOverride: false };
}

/**
 * Maps an offset in a scalar's value to the file: follows the source text character by character, so a
 * formula folded over several lines (newline + indentation read as one space) still points at the right place.
 */
function offsetInScalar(text: string, node: Scalar, valueOffset: number): number {
  const value = String(node.value);
  let j = node.range![0] + (isQuoted(node) ? 1 : 0);
  for (let i = 0; i < valueOffset && j < text.length; i++) {
    if (value[i] === " " && (text[j] === "\n" || text[j] === "\r")) {
      while (j < text.length && /\s/.test(text[j]!)) j++;
    } else j++;
  }
  return j;
}

function isQuoted(node: Scalar): boolean {
  return node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
}
