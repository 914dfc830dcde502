import type { BenchLine } from "./lines.js";
export async function benchFs(_d: string, _l: (line: string) => void): Promise<BenchLine[]> { return []; }
