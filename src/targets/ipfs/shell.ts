/**
 * An ipfs target in the compiled script: the Kubo RPC API address in BS_TAPI. The script cannot launch
 * Kubo: a `launch: kubo` target needs the user's node, used as it is (never wiped).
 */
import { shQuote } from "../../emit/writer.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { placeFromEnvironment } from "../shell.js";
import type { TargetShell } from "../types.js";

export const ipfsShell: TargetShell<TargetOf<"ipfs">> = {
  place: () => "the Kubo RPC API address, e.g. http://127.0.0.1:5001 or /ip4/127.0.0.1/tcp/5001",
  functions: (t) => {
    const { target, fn } = t;
    const name = shQuote(t.name);
    return {
      setup: (w) => {
        placeFromEnvironment(w, t, "api", {
          specValue: target.api,
          key: "api",
          unplaced: `target ${t.name} is "launch: kubo": start a Kubo daemon (ipfs daemon --offline) and set ${t.variable} to its API address, e.g. http://127.0.0.1:5001`,
        });
        w.line(`BS_TAPI[${name}]=$api`);
        w.line(`${fn}_enter`);
        w.line(`bs_ipfs_target_check ${name}`);
      },
      enter: `BS_IPFS_API=\${BS_TAPI[${name}]}`,
    };
  },
  gaps: (target) =>
    target.launch !== undefined && target.fresh !== undefined && target.fresh !== "once"
      ? [`a fresh Kubo node ${target.fresh} is not started: the script uses the node it is given, as it is`]
      : [],
};
