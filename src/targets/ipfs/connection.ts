/** What an ipfs engine works with: a Kubo node's RPC API, launched by benchspec or external. */
export interface IpfsConnection {
  /** The RPC API base URL; changes when the node is renewed. */
  api: string;
  /** benchspec started this node (a throwaway repo); false for an external `api:` node, which holds the user's data. */
  launched: boolean;
  /** Replaces a launched node by one with an empty repo; absent for external nodes (never wiped). */
  renew?: () => Promise<void>;
  /** Each launched repo so far, for tests and provenance. */
  repos: string[];
  /** Nothing has run on the node since it was launched (a fresh node need not be replaced yet). */
  pristine: boolean;
}
