import { describe, expect, it } from "vitest";
import { evalExpr, ExprError, exprVars, parseExpr } from "../../src/spec/expr.js";

const evaluate = (text: string, vars: Record<string, number> = {}) => evalExpr(parseExpr(text), vars);

describe("expressions", () => {
  it("follows arithmetic precedence with min/max and vars", () => {
    expect(evaluate("min(1000 + 6 * capacityGiB, 3000)", { capacityGiB: 100 })).toBe(1600);
    expect(evaluate("min(1000 + 6 * capacityGiB, 3000)", { capacityGiB: 400 })).toBe(3000);
    expect(evaluate("(1 + 2) * 3 - 4 / 2")).toBe(7);
    expect(evaluate("-2 * -3")).toBe(6);
    expect(evaluate("max(1, 5, 3)")).toBe(5);
  });

  it("turns unit literals into base units", () => {
    expect(evaluate("1GiB")).toBe(2 ** 30);
    expect(evaluate("25Gbit/s * 0.95")).toBeCloseTo(2.96875e9);
    expect(evaluate("min(50 + 0.1 * gb, 80) * 1MB/s", { gb: 100 })).toBe(60e6);
    expect(evaluate("500ms + 1s")).toBe(1.5);
  });

  it("reads a rate unit only where it ends a word: 1MiB/s is a rate, 1MiB/size a division (as documented)", () => {
    expect(evaluate("1MiB/s")).toBe(2 ** 20);
    expect(evaluate("1MiB/size", { size: 4 })).toBe(2 ** 18);
    expect(evaluate("1MiB / size", { size: 4 })).toBe(2 ** 18);
  });

  it("reports syntax errors with the offset of the problem", () => {
    const offsetOf = (text: string) => {
      try {
        parseExpr(text);
      } catch (error) {
        if (error instanceof ExprError) return error.offset;
        throw error;
      }
      throw new Error("parsed");
    };
    expect(offsetOf("min(1, 2")).toBe(8);
    expect(offsetOf("1 + * 2")).toBe(4);
    expect(offsetOf("3 4")).toBe(2);
    expect(offsetOf("4 Kb")).toBe(2);
    expect(offsetOf("4Kb")).toBe(0);
    expect(() => parseExpr("process.exit(1)")).toThrow(ExprError);
    expect(() => parseExpr("eval(1)")).toThrow(/unknown function "eval"/);
  });

  it("never reaches outside its variables", () => {
    expect(() => evaluate("constructor")).toThrow(/unknown variable "constructor"/);
    expect(() => evaluate("toString", {})).toThrow(/unknown variable/);
    expect(exprVars(parseExpr("a + min(b, 2 * c)")).map((v) => v.name)).toEqual(["a", "b", "c"]);
  });

  it("bounds nesting so hostile input cannot exhaust the stack", () => {
    expect(() => parseExpr("(".repeat(200) + "1" + ")".repeat(200))).toThrow(/nested too deeply/);
  });
});
