/**
 * An ipfs target in the compiled script: the Kubo RPC API address in BS_TAPI. A `launch: kubo` target gets
 * a throwaway offline node the script starts (ipfs.sh), renewed as its `fresh` says, unless
 * BENCHSPEC_TARGET_<name> places it on the user's node, which is used as it is (never wiped).
 */
import { shQuote } from "../../emit/writer.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { placeFromEnvironment } from "../shell.js";
import type { TargetShell } from "../types.js";

export const ipfsShell: TargetShell<TargetOf<"ipfs">> = {
  library: new URL("./ipfs.sh", import.meta.url),
  place: (target) =>
    target.launch !== undefined
      ? "unset: a throwaway Kubo node the script starts; or a Kubo RPC API address to use instead"
      : "the Kubo RPC API address, e.g. http://127.0.0.1:5001 or /ip4/127.0.0.1/tcp/5001",
  functions: (t) => {
    const { target, fn } = t;
    const name = shQuote(t.name);
    const fresh = target.launch !== undefined ? target.fresh : undefined;
    return {
      setup: (w) => {
        if (target.launch !== undefined) {
          w.line(`local api=\${${t.variable}:-}`);
          if (fresh !== undefined && fresh !== "once")
            w.line(
              `if [[ -n $api ]]; then bs_log ${shQuote(`note: target ${t.name} asks for a fresh node ${fresh}; this script uses the node at ${t.variable} as it is`)}; fi`,
            );
          w.block(
            "if [[ -z $api ]]; then",
            () => {
              w.line(`bs_kubo_launch ${name}`);
              w.line(`api=\${BS_TAPI[${name}]}`);
            },
            "fi",
          );
        } else placeFromEnvironment(w, t, "api", { specValue: target.api, key: "api" });
        w.line(`BS_TAPI[${name}]=$api`);
        w.line(`${fn}_enter`);
        w.line(`bs_ipfs_target_check ${name}`);
      },
      enter: `BS_IPFS_API=\${BS_TAPI[${name}]}`,
      ...(target.launch !== undefined && { release: `bs_kubo_stop ${name}` }),
      ...(fresh === "per-repetition" && { repetition: `bs_kubo_fresh ${name}` }),
      ...(fresh === "per-case" && { case: `bs_kubo_fresh ${name}` }),
    };
  },
};
