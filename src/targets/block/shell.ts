/** A block target in the compiled script: the device, checked unused by bs_block_setup and, when
 * destructive, holding only what the spec's overwrite names by bs_block_overwrite (block.sh). */
import { shQuote } from "../../emit/writer.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { placeFromEnvironment } from "../shell.js";
import type { TargetShell } from "../types.js";

export const blockShell: TargetShell<TargetOf<"block">> = {
  library: new URL("./block.sh", import.meta.url),
  purgeTools: ["blkdiscard"],
  place: (target) =>
    `a block device${target.destructive ? " — ITS CONTENTS ARE DESTROYED" : ""} (default: the spec's device)`,
  functions: (t) => {
    const name = shQuote(t.name);
    return {
      setup: (w) => {
        placeFromEnvironment(w, t, "device", { specValue: t.target.device, key: "device" });
        w.line(`bs_block_setup ${name} "$device"`);
        const { destructive, overwrite } = t.target;
        if (destructive === true)
          w.line(
            `bs_block_overwrite ${name} ${shQuote(overwrite?.signature ?? "")} ${shQuote(overwrite?.uuid ?? "")}`,
          );
      },
      enter: `BS_DEVICE=\${BS_TDEV[${name}]}`,
      purge: "bs_block_purge",
    };
  },
};
