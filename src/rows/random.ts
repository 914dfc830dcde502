/**
 * A small, seeded PRNG (mulberry32): the same seed gives the same sequence on every run. As a class for
 * hot loops (the bootstrap draws 2000 × n numbers per case), whose method they inline.
 */
export class Mulberry32 {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** mulberry32 as a function. */
export function seededRandom(seed: number): () => number {
  const random = new Mulberry32(seed);
  return () => random.next();
}
