/**
 * The sdk format's document (schema/sdk.schema.json): one of the call schemas the registered engines have,
 * told apart by `engine`. Each engine's schema is in its folder (`<name>/sdk-schema.ts`), built from the
 * format's shared blocks (emit/sdk-format.ts).
 */
import { z } from "zod";
import { SDK_SCHEMA_ID } from "../emit/sdk-format.js";
import { ENGINE_NAMES, ENGINES, type EngineName } from "./index.js";

type Registered = (typeof ENGINES)[EngineName];
type EngineSdkSchema = Extract<Registered, { sdk: unknown }>["sdk"];

const schemas = ENGINE_NAMES.flatMap((name): EngineSdkSchema[] => {
  const registered: Registered = ENGINES[name];
  return "sdk" in registered ? [registered.sdk] : [];
});

export const SdkDocumentSchema = z
  .discriminatedUnion("engine", schemas as [EngineSdkSchema, ...EngineSdkSchema[]])
  .meta({
    title: "benchspec sdk call sequence",
    description: "One case of a compiled benchspec plan as S3/IPFS calls (docs/sdk-format.md)",
  });

export type SdkDocument = z.output<typeof SdkDocumentSchema>;

/** schema/sdk.schema.json: generated from the zod schema, never by hand. */
export function sdkJsonSchema(): string {
  const schema = z.toJSONSchema(SdkDocumentSchema, { target: "draft-2020-12", io: "output" });
  return `${JSON.stringify({ $id: SDK_SCHEMA_ID, ...schema }, null, 2)}\n`;
}
