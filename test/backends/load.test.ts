import { describe, expect, it } from "vitest";
import { describeError } from "../../src/backends/load.js";

describe("describeError", () => {
  it("keeps the error's name, code and HTTP status on one line", () => {
    const error = Object.assign(new Error("connect ECONNREFUSED\n 127.0.0.1:9000"), { code: "ECONNREFUSED" });
    expect(describeError(error)).toBe("connect ECONNREFUSED 127.0.0.1:9000 [ECONNREFUSED]");
    const denied = Object.assign(new Error("Access Denied."), {
      name: "AccessDenied",
      $metadata: { httpStatusCode: 403 },
    });
    expect(describeError(denied)).toBe("AccessDenied: Access Denied. (HTTP 403 Forbidden)");
  });

  it("turns the SDK's multi-line deserialization error (a server going down) into a short reason", () => {
    const error = Object.assign(
      new Error(
        "char 'S' is not expected.:1:1\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.",
      ),
      { name: "Error", $metadata: { httpStatusCode: 503 } },
    );
    expect(describeError(error)).toBe("the server's reply was not S3 XML (HTTP 503 Service Unavailable)");
  });
});
