import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Kept equal to ENGINE_NAMES (src/engines/index.ts) and TARGET_KINDS (src/spec/schema.ts); test/lint.test.ts checks. */
export const ENGINE_NAMES = ["fio", "dd", "s3", "ipfs"];
export const TARGET_KINDS = ["fs", "block", "s3", "ipfs"];
/** Kept equal to the `transport` values of HostGroupSchema (src/spec/schema.ts). */
export const TRANSPORTS = ["ssh", "slurm", "fio", "kubernetes"];

const NAME = `/^(${[...new Set([...ENGINE_NAMES, ...TARGET_KINDS, ...TRANSPORTS])].join("|")})$/`;
const WHY =
  "what an engine, a target kind or a host transport does lives in its module (src/engines/<name>/, src/targets/<kind>/, src/hosts/<transport>.ts) and its registry entry; shared code asks the registry instead of comparing names";

/**
 * Engine and target-kind knowledge stays in its backend: outside the backends' folders and the registries,
 * no comparison and no `case` label names an engine or a target kind.
 */
/** `Math.max(...values)` puts every value on the stack and overflows past ~120,000 of them (a run's requests). */
const spreadExtremes = {
  selector: "CallExpression[callee.object.name='Math'][callee.property.name=/^(max|min)$/] > SpreadElement",
  message: "use maxOf / minOf (src/rows/stats.ts): a spread overflows the stack on large arrays",
};

const nameBranches = {
  files: ["src/**/*.ts"],
  ignores: [
    `src/engines/{${ENGINE_NAMES.join(",")}}/**`,
    `src/targets/{${TARGET_KINDS.join(",")}}/**`,
    `src/hosts/{${TRANSPORTS.join(",")}}.ts`,
    "src/hosts/transports.ts",
    "src/engines/index.ts",
    "src/targets/index.ts",
    "src/spec/schema.ts",
    "src/spec/target-kinds.ts",
  ],
  rules: {
    "no-restricted-syntax": [
      "error",
      { selector: `BinaryExpression[operator=/^[!=]==?$/] > Literal[value=${NAME}]`, message: WHY },
      { selector: `SwitchCase > Literal.test[value=${NAME}]`, message: WHY },
      spreadExtremes,
    ],
  },
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "runs/", "coverage/", "scratch/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  // nameBranches repeats spreadExtremes: a later block's no-restricted-syntax replaces an earlier one's.
  { files: ["src/**/*.ts", "bench/**/*.ts"], rules: { "no-restricted-syntax": ["error", spreadExtremes] } },
  nameBranches,
);
