import { describe, expect, it } from "vitest";
import { BenchspecError, ERROR_CODES, EXIT, hasCode, marked, rootCode } from "../../src/platform/errors.js";

describe("BenchspecError", () => {
  it("takes its exit status from the code table, and keeps its cause", () => {
    const cause = new Error("EACCES");
    const error = new BenchspecError("unwritable-output", "cannot create x: permission denied", { cause });
    expect(error.exitCode).toBe(EXIT.invalid);
    expect(error.cause).toBe(cause);
    expect(new BenchspecError("usage", "u").exitCode).toBe(EXIT.invalid);
    expect(new BenchspecError("target-setup", "t").exitCode).toBe(EXIT.failure);
    for (const status of Object.values(ERROR_CODES)) expect(Object.values(EXIT)).toContain(status);
  });

  it("marks another's error without changing its name or message", () => {
    const timeout = Object.assign(new Error("socket timed out"), { name: "TimeoutError" });
    const error = marked("target-unresponsive", timeout);
    expect(error).toMatchObject({
      code: "target-unresponsive",
      name: "TimeoutError",
      message: "socket timed out",
    });
    expect(error.cause).toBe(timeout);
    expect(String(error)).toBe(String(timeout));
  });

  it("hasCode looks at the error itself; rootCode at the innermost coded error of the cause chain", () => {
    const inner = marked("target-unresponsive", new Error("no bytes"));
    const wrapper = new BenchspecError("target-setup", 'target "s": no bytes', { cause: inner });
    expect(hasCode(wrapper, "target-setup")).toBe(true);
    expect(hasCode(wrapper, "target-unresponsive")).toBe(false);
    expect(rootCode(wrapper)).toBe("target-unresponsive");
    expect(rootCode(new BenchspecError("server-start", "x", { cause: new Error("plain") }))).toBe(
      "server-start",
    );
    expect(rootCode(new Error("plain"))).toBeUndefined();
    expect(rootCode(undefined)).toBeUndefined();
  });
});
