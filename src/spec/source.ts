/**
 * YAML loading with source positions. Guards come before any interpretation: file size, nesting depth,
 * node count, alias expansion, duplicate and prototype-polluting keys. The result keeps the parsed document
 * so every later stage can point at `file:line:column`.
 */
import {
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

export const LIMITS = { bytes: 1024 * 1024, depth: 32, nodes: 100_000, aliases: 100 } as const;

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

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
  const doc = parseDocument(text, {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
    merge: false,
    strict: true,
  });
  const source: SpecSource = { file, text, doc, lineCounter };
  for (const error of [...doc.errors, ...doc.warnings]) {
    const code: DiagnosticCode = error.code === "DUPLICATE_KEY" ? "duplicate-key" : "yaml-syntax";
    const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    diagnostics.push(at(code, message, error.pos[0]));
  }
  if (diagnostics.length > 0) return { source, value: undefined, diagnostics };

  diagnostics.push(...checkStructure(doc.contents, at));
  if (diagnostics.length > 0) return { source, value: undefined, diagnostics };
  try {
    return { source, value: doc.toJS({ maxAliasCount: LIMITS.aliases }), diagnostics };
  } catch (error) {
    const message = `aliases expand beyond ${LIMITS.aliases} copies (${(error as Error).message})`;
    return { source, value: undefined, diagnostics: [at("alias-limit", message, 0)] };
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
  innerOffset = 0,
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
  if (innerOffset > 0 && isScalar(node)) offset += innerOffset + (isQuoted(node) ? 1 : 0);
  const { line, col } = source.lineCounter.linePos(offset);
  return { line, column: col, fromOverride: false };
}

function isQuoted(node: Scalar): boolean {
  return node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
}
