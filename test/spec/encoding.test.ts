/** A spec saved in another encoding than UTF-8 is refused naming that encoding, not parsed as mojibake. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSpec } from "../../src/engines/language.js";
import { DIAGNOSTIC_CODES } from "../../src/diagnostics/codes.js";
import { ROOT, SPECS_DIR } from "../support/spec.js";

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), "benchspec-encoding-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function diagnosticOf(bytes: Buffer) {
  const file = join(dir, "spec.yaml");
  await writeFile(file, bytes);
  const { diagnostics, plan } = await loadSpec(file);
  return { diagnostic: diagnostics[0], plan };
}

describe("a spec's encoding", () => {
  it("names UTF-16 and UTF-32 (with or without a byte order mark) and bytes that are not UTF-8", async () => {
    const text = await readFile(join(SPECS_DIR, "quickstart.yaml"), "utf8");
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const utf16be = Buffer.from(utf16le).swap16();
    const cases: [Buffer, RegExp][] = [
      [utf16le, /the file is UTF-16 \(little-endian\); save it as UTF-8/],
      [utf16be, /the file is UTF-16 \(big-endian\); save it as UTF-8/],
      [Buffer.from(text, "utf16le"), /looks like UTF-16/],
      [Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from("b\0\0\0")]), /UTF-32 \(little-endian\)/],
      [Buffer.from("benchspec: 1\nname: caf\xe9\n", "latin1"), /not valid UTF-8/],
    ];
    for (const [bytes, message] of cases) {
      const { diagnostic, plan } = await diagnosticOf(bytes);
      expect(plan).toBeUndefined();
      expect(diagnostic).toMatchObject({ code: "not-utf8", message: expect.stringMatching(message) });
    }
    // UTF-8, with a byte order mark too, is read as it is.
    expect((await diagnosticOf(Buffer.from(text))).plan).toBeDefined();
    expect(
      (await diagnosticOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]))).plan,
    ).toBeDefined();
  });
});

describe("the diagnostic codes", () => {
  it("are the ones docs/language.md lists, every one of them and no other", async () => {
    const docs = await readFile(join(ROOT, "docs", "language.md"), "utf8");
    const table = docs.slice(docs.indexOf("**Codes**"), docs.indexOf("**Exit codes**"));
    const listed = [...table.matchAll(/^\| `([a-z0-9-]+)` /gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
  });
});
