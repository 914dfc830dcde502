// Assembles every WebAssembly text module under src/ (*.wat) into its binary beside it (*.wasm), which is
// committed: the runtime loads the binary and needs no assembler. `npm run build:wasm` after changing a
// .wat file; with --check it writes nothing and fails if a committed binary is not what its text assembles
// to (a test runs that).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import initWabt from "wabt";

const wabt = await initWabt();
const root = join(import.meta.dirname, "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const entry of readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".wat")) continue;
  const path = join(entry.parentPath, entry.name);
  const module = wabt.parseWat(path, readFileSync(path, "utf8"));
  module.validate();
  const binary = Buffer.from(module.toBinary({}).buffer);
  module.destroy();
  const target = path.replace(/\.wat$/, ".wasm");
  if (!check) writeFileSync(target, binary);
  else if (!binary.equals(readFileSync(target))) {
    console.error(`${target} is not what ${entry.name} assembles to: run npm run build:wasm`);
    stale++;
  }
}
process.exitCode = stale > 0 ? 1 : 0;
