import { z } from "zod";
import type { EngineTable } from "./engines.js";
import { EngineNameSchema, SpecSchema, TARGET_KINDS } from "./schema.js";

export const SCHEMA_ID = "https://benchspec.dev/schema/benchspec.schema.json";

/**
 * The JSON Schema editors use for completion and checks; generated from the zod schema, never by hand, with
 * the engines it is given (their names, and which is each target kind's default).
 */
export function specJsonSchema(engines: EngineTable): string {
  const schema = z.toJSONSchema(SpecSchema, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
    reused: "ref",
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema !== EngineNameSchema) return;
      // Rebuilt, not amended: its keys in the order an enum's schema has them.
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, {
        type: "string",
        enum: Object.keys(engines),
        description: `default: ${engineDefaults(engines)}`,
      });
    },
  });
  return `${JSON.stringify({ $id: SCHEMA_ID, ...schema }, null, 2)}\n`;
}

/** "fio for fs/block, s3 for s3, …": each engine that is a default, and the target kinds it is it for. */
function engineDefaults(engines: EngineTable): string {
  return Object.entries(engines)
    .map(([name, info]) => ({ name, kinds: TARGET_KINDS.filter((kind) => info.defaultFor.includes(kind)) }))
    .filter(({ kinds }) => kinds.length > 0)
    .map(({ name, kinds }) => `${name} for ${kinds.join("/")}`)
    .join(", ");
}
