import { Command } from "commander";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { outputPlace } from "../platform/atomic-write.js";
import { EXIT, nonEmptyPath, writeOutputFile, type Io } from "./context.js";

export function makeSchemaCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("schema")
    .description(
      "write the JSON Schema of the spec language (for editors), and next to it that of the sdk call sequences",
    )
    .option("-o, --out <file>", 'where to write it ("-" for stdout)', "schema/benchspec.schema.json")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec schema                      # writes schema/benchspec.schema.json and schema/sdk.schema.json
  $ benchspec schema -o - | jq .title

Reference it from a spec with:  # yaml-language-server: $schema=<path to the file>`,
    )
    .action(async (options: { out: string }) => {
      const [{ SDK_SCHEMA_FILE }, { sdkJsonSchema }, { specJsonSchema }, { ENGINE_FACTS }] =
        await Promise.all([
          import("../emit/sdk-format.js"),
          import("../engines/sdk-schema.js"),
          import("../spec/json-schema.js"),
          import("../engines/index.js"),
        ]);
      const text = specJsonSchema(ENGINE_FACTS);
      const out = nonEmptyPath("-o", options.out);
      if (out === "-") io.stdout.write(text);
      else {
        await mkdir(dirname(out), { recursive: true }).catch(() => {
          // The write below says why the directory is unusable.
        });
        // Into a device or a pipe (/dev/stdout) goes the spec's schema alone: its directory is no place for files.
        const stream = await outputPlace(out)
          .then((place) => place.stream)
          .catch(() => false);
        await writeOutputFile("-o", out, text);
        if (stream)
          io.stderr.write(
            `benchspec: wrote the spec's schema into ${out}; the sdk schema is written beside a file only\n`,
          );
        else {
          const sdkOut = join(dirname(out), SDK_SCHEMA_FILE);
          await writeOutputFile("-o", sdkOut, sdkJsonSchema());
          io.stdout.write(`wrote ${out}\nwrote ${sdkOut}\n`);
        }
      }
      setExit(EXIT.ok);
    });
}
