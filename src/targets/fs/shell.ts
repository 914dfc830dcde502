/** An fs target in the compiled script: a fresh benchspec.* subdirectory of the given directory (fs.sh). */
import { shQuote } from "../../emit/writer.js";
import type { TargetOf } from "../../spec/target-kinds.js";
import { placeFromEnvironment } from "../shell.js";
import type { TargetShell } from "../types.js";

export const fsShell: TargetShell<TargetOf<"fs">> = {
  library: new URL("./fs.sh", import.meta.url),
  place: () =>
    "a directory (files go into a fresh benchspec.* subdirectory of it; default: the spec's path or a new temp dir)",
  functions: (t) => {
    const name = shQuote(t.name);
    const keep = t.target.keep === true ? "keep" : "remove";
    return {
      setup: (w) => {
        placeFromEnvironment(w, t, "root", { specValue: t.target.path, key: "path" });
        w.line(`bs_fs_setup ${name} "$root" ${keep}`);
      },
      enter: `bs_fs_enter ${name}`,
      leave: `bs_fs_leave ${name} ${keep}`,
      purge: "bs_fs_purge",
    };
  },
};
