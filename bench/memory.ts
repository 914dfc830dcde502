import type { BenchLine } from "./lines.js";
import type { Servers } from "./servers.js";
export async function benchMemory(_s: Servers, _d: string, _l: (line: string) => void): Promise<BenchLine[]> { return []; }
