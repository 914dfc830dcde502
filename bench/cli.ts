// benchspec from its sources (through tsx), for when dist/ is missing or stale: the same main() bin/ calls.
import { main } from "../src/cli/main.js";

process.exitCode = await main(process.argv);
