/**
 * The spec's expression language: numbers (optionally with a unit: 1GiB, 25Gbit/s, 30s), variable names,
 * + - * / with the usual precedence, parentheses, unary minus, and min(...)/max(...). Parsed into a tree and
 * evaluated by a tiny interpreter — never eval, never handed to another language.
 */
import { BenchspecError } from "../platform/errors.js";
import { unitFactor } from "./units.js";
import { maxOf, minOf } from "../rows/stats.js";

export type Expr =
  | { type: "num"; value: number }
  | { type: "var"; name: string; offset: number }
  | { type: "neg"; arg: Expr }
  | { type: "bin"; op: "+" | "-" | "*" | "/"; left: Expr; right: Expr }
  | { type: "call"; fn: FunctionName; args: Expr[] };

const FUNCTIONS = {
  min: (args: number[]) => minOf(args),
  max: (args: number[]) => maxOf(args),
} as const;
type FunctionName = keyof typeof FUNCTIONS;

/** A class of its own for the offset it carries, which the diagnostic points at. */
export class ExprError extends BenchspecError {
  constructor(
    message: string,
    /** Character offset inside the expression text. */
    readonly offset: number,
  ) {
    super("invalid-expression", message);
  }
}

const MAX_LENGTH = 1000;

export function parseExpr(text: string): Expr {
  if (text.length > MAX_LENGTH) throw new ExprError(`expression longer than ${MAX_LENGTH} characters`, 0);
  const parser = new Parser(text);
  const expr = parser.expression();
  parser.expectEnd();
  return expr;
}

/** Names of the variables an expression uses, with their offsets, for "unknown var" diagnostics. */
export function exprVars(expr: Expr): { name: string; offset: number }[] {
  switch (expr.type) {
    case "num":
      return [];
    case "var":
      return [{ name: expr.name, offset: expr.offset }];
    case "neg":
      return exprVars(expr.arg);
    case "bin":
      return [...exprVars(expr.left), ...exprVars(expr.right)];
    case "call":
      return expr.args.flatMap(exprVars);
  }
}

export function evalExpr(expr: Expr, vars: Readonly<Record<string, number>>): number {
  switch (expr.type) {
    case "num":
      return expr.value;
    case "var": {
      const value = vars[expr.name];
      // A number only: a target's vars inherit the spec's (spec/vars.ts), and nothing of Object's prototype
      // (toString, constructor) is a number.
      if (typeof value !== "number") {
        throw new ExprError(`unknown variable "${expr.name}"`, expr.offset);
      }
      return value;
    }
    case "neg":
      return -evalExpr(expr.arg, vars);
    case "bin": {
      const left = evalExpr(expr.left, vars);
      const right = evalExpr(expr.right, vars);
      if (expr.op === "+") return left + right;
      if (expr.op === "-") return left - right;
      if (expr.op === "*") return left * right;
      return left / right;
    }
    case "call":
      return FUNCTIONS[expr.fn](expr.args.map((arg) => evalExpr(arg, vars)));
  }
}

const MAX_DEPTH = 64;

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  expression(): Expr {
    if (++this.depth > MAX_DEPTH) throw new ExprError("expression nested too deeply", this.pos);
    let left = this.term();
    for (let op = this.peekOp(["+", "-"]); op; op = this.peekOp(["+", "-"])) {
      this.pos++;
      left = { type: "bin", op, left, right: this.term() };
    }
    this.depth--;
    return left;
  }

  expectEnd(): void {
    this.skipSpace();
    if (this.pos < this.text.length) {
      throw new ExprError(`unexpected "${this.text[this.pos]}"; expected an operator (+ - * /)`, this.pos);
    }
  }

  private term(): Expr {
    let left = this.factor();
    for (let op = this.peekOp(["*", "/"]); op; op = this.peekOp(["*", "/"])) {
      this.pos++;
      left = { type: "bin", op, left, right: this.factor() };
    }
    return left;
  }

  private factor(): Expr {
    this.skipSpace();
    const char = this.text[this.pos];
    if (char === undefined)
      throw new ExprError("expression ends too early; expected a number or name", this.pos);
    if (char === "-") {
      this.pos++;
      return { type: "neg", arg: this.factor() };
    }
    if (char === "(") {
      this.pos++;
      const inner = this.expression();
      this.expect(")");
      return inner;
    }
    if (/[\d.]/.test(char)) return this.number();
    if (/[A-Za-z_]/.test(char)) return this.nameOrCall();
    throw new ExprError(`unexpected "${char}"; expected a number, a name, "(" or "-"`, this.pos);
  }

  private number(): Expr {
    const start = this.pos;
    const match = /^(\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?([A-Za-z]+(?:\/s(?![A-Za-z0-9_]))?)?/.exec(
      this.text.slice(start),
    );
    if (!match) throw new ExprError("malformed number", start);
    this.pos += match[0].length;
    const value = Number(match[0].slice(0, match[0].length - (match[2]?.length ?? 0)));
    if (!match[2]) return { type: "num", value };
    const factor = unitFactor(match[2]);
    if (factor === undefined) {
      throw new ExprError(
        `unknown unit "${match[2]}" (sizes B…PiB/KB…PB, rates …/s or bit/s, durations us ms s m h)`,
        start,
      );
    }
    return { type: "num", value: value * factor };
  }

  private nameOrCall(): Expr {
    const start = this.pos;
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(start))![0];
    this.pos += name.length;
    this.skipSpace();
    if (this.text[this.pos] !== "(") return { type: "var", name, offset: start };
    if (!Object.hasOwn(FUNCTIONS, name)) {
      throw new ExprError(
        `unknown function "${name}"; available: ${Object.keys(FUNCTIONS).join(", ")}`,
        start,
      );
    }
    this.pos++;
    const args = [this.expression()];
    for (this.skipSpace(); this.text[this.pos] === ","; this.skipSpace()) {
      this.pos++;
      args.push(this.expression());
    }
    this.expect(")");
    return { type: "call", fn: name as FunctionName, args };
  }

  private peekOp<T extends "+" | "-" | "*" | "/">(ops: readonly T[]): T | undefined {
    this.skipSpace();
    return ops.find((op) => op === this.text[this.pos]);
  }

  private expect(char: string): void {
    this.skipSpace();
    if (this.text[this.pos] !== char) throw new ExprError(`expected "${char}"`, this.pos);
    this.pos++;
  }

  private skipSpace(): void {
    while (this.text[this.pos] === " " || this.text[this.pos] === "\t") this.pos++;
  }
}
