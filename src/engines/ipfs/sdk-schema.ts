/**
 * The ipfs engine's call schema in the sdk format (docs/sdk-format.md): its target, its operations and a
 * repetition's setup, measured and cleanup groups, built from the format's shared blocks (emit/sdk-format.ts).
 */
import { z } from "zod";
import {
  asWritten,
  batch,
  group,
  header,
  measured,
  objectSize,
  refPattern,
  repetitionHead,
  SdkDataSchema,
  seedPattern,
} from "../../emit/sdk-format.js";

export const IpfsTargetSchema = z.strictObject({
  name: z.string(),
  kind: z.literal("ipfs"),
  launch: z.literal("kubo").optional().describe("start a throwaway offline Kubo node, API on loopback"),
  fresh: z
    .enum(["once", "per-case", "per-repetition"])
    .optional()
    .describe("with launch: once = one node for the whole run; see freshNode on each repetition"),
  api: asWritten
    .optional()
    .describe(
      "an existing node's RPC API; never wiped or garbage-collected, only the run's own blocks removed",
    ),
  keep: z.boolean().optional().describe("keep what was added: no cleanup"),
});

const cidRef = z.strictObject({ ref: refPattern }).describe("the CID(s) produced by the add with this ref");

const add = z
  .strictObject({
    op: z.literal("add"),
    ...batch,
    ref: refPattern,
    seed: seedPattern,
    size: objectSize,
    chunker: z.string().describe("Kubo chunker: size-N, rabin[-min-avg-max] or buzhash"),
    cidVersion: z.literal([0, 1]),
    rawLeaves: z.boolean(),
    pin: z.boolean(),
  })
  .meta({ id: "IpfsAdd" });

const cat = z.strictObject({
  op: z.literal("cat"),
  ...batch,
  cid: cidRef,
  size: objectSize.describe("expected bytes; the stream is always read to its end"),
});

const pinRm = z
  .strictObject({ op: z.literal("pin/rm"), ...batch, cid: cidRef })
  .describe(
    "unpin every CID remembered under the refs; on an external node not one that was pinned before the case began",
  );
const blockRm = z
  .strictObject({ op: z.literal("block/rm"), ...batch, cid: cidRef })
  .describe(
    "remove exactly the blocks the adds under the refs stored: each CID, every block `refs -r` lists below it " +
      "(offline) and the directory block Kubo's add leaves besides (docs/sdk-format.md); listed before any " +
      "cleanup step runs; Kubo keeps a block that is still pinned",
  );
const repoGc = z
  .strictObject({ op: z.literal("repo/gc") })
  .describe("garbage-collect the whole node: only for a launched (throwaway) node, never an external one");

export const IpfsSdkDocumentSchema = z
  .strictObject({
    ...header,
    engine: z.literal("ipfs"),
    op: z.enum(["put", "get"]),
    target: IpfsTargetSchema,
    data: SdkDataSchema,
    repetitions: z
      .array(
        z.strictObject({
          ...repetitionHead,
          freshNode: z
            .boolean()
            .describe(
              "start this repetition on a freshly initialized node (stop and discard the previous one)",
            ),
          setup: group(add).optional().describe("unmeasured: the content the measured operations need"),
          measured: measured(z.discriminatedUnion("op", [add, cat])),
          cleanup: z
            .array(z.discriminatedUnion("op", [pinRm, blockRm, repoGc]))
            .describe("always run, also after a failure or Ctrl-C"),
        }),
      )
      .min(1),
  })
  .superRefine((doc, ctx) => {
    if (doc.target.launch !== undefined) return;
    doc.repetitions.forEach((repetition, r) =>
      repetition.cleanup.forEach((step, s) => {
        if (step.op === "repo/gc")
          ctx.addIssue({
            code: "custom",
            path: ["repetitions", r, "cleanup", s],
            message:
              "repo/gc only on a launched node: on an external node it collects the user's unpinned blocks",
          });
      }),
    );
  })
  .meta({ id: "IpfsDocument", title: "benchspec sdk call sequence (IPFS)" });

export type IpfsSdkDocument = z.output<typeof IpfsSdkDocumentSchema>;
export type IpfsRepetition = IpfsSdkDocument["repetitions"][number];
