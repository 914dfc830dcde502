import type { CasePlace } from "./types.js";

/** Every case works on the whole target, and leaves nothing of its own behind (block, s3, ipfs). */
export const wholeTarget = (location: string) => async (): Promise<CasePlace> => ({
  location,
  leave: async () => {},
});
