import { z } from "zod";
import { SpecSchema } from "./schema.js";

export const SCHEMA_ID = "https://benchspec.dev/schema/benchspec.schema.json";

/** The JSON Schema editors use for completion and checks; generated from the zod schema, never by hand. */
export function specJsonSchema(): string {
  const schema = z.toJSONSchema(SpecSchema, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
    reused: "ref",
  });
  return `${JSON.stringify({ $id: SCHEMA_ID, ...schema }, null, 2)}\n`;
}
