/**
 * Every diagnostic code benchspec emits, with what it means. Codes are stable: tests, editors and scripts
 * may match on them.
 */
export const DIAGNOSTIC_CODES = {
  "yaml-syntax": "the file is not valid YAML",
  "yaml-version": "the document declares a YAML version other than 1.2 (%YAML 1.1)",
  "not-a-file": "the spec path is a directory, a FIFO or a device, not a regular file",
  "not-utf8": "the spec file is not UTF-8 text (UTF-16 or UTF-32 from an editor, or bytes that are not text)",
  "file-too-large": "the spec file exceeds the size limit",
  "too-deep": "the document nests deeper than the limit",
  "too-many-nodes": "the document has more values than the limit",
  "alias-limit": "YAML aliases expand beyond the limit (alias bomb)",
  "duplicate-key": "a mapping has the same key twice",
  "forbidden-key": "a key such as __proto__ that could alter objects",
  "unknown-key": "a key that is not part of the language here",
  "missing-key": "a required key is absent",
  "invalid-type": "a value has the wrong type",
  "invalid-value": "a value is outside what is allowed",
  "invalid-unit": "a value lacks a unit or has one that is not accepted",
  "out-of-range": "a number is outside its range (a percentage above 100%, a size of 0B, iodepth 0…)",
  "invalid-name": "a name uses characters that are not allowed",
  "invalid-env-ref": "a ${...} reference other than ${env:NAME}",
  "expr-syntax": "an expression cannot be parsed",
  "unknown-var": "an expression uses a variable that is not defined",
  "unknown-target": "a workload names a target that is not defined",
  "unknown-host-group": "a workload names a host group that is not defined",
  "unreachable-from-hosts":
    "a case runs on other hosts against a server only this machine can reach (launch:)",
  "unsupported-transport":
    "a case's engine or target cannot run over its host group's transport (fio's client/server runs fio on fs paths)",
  "unsupported-with-hosts":
    "purge, idle or autotune on a case that runs on a host group (purge and idle act on this machine's targets only; each host would tune alone)",
  "varies-within-workload":
    "purge or precondition differs between cases of one workload on one target (each runs once per workload and target)",
  "unknown-workload": "an expect or chart names a workload that is not defined",
  "unknown-param": "a name that is not a workload parameter",
  "duplicate-name": "two workloads share a name",
  "duplicate-dimension": "a parameter is swept both as a list and in the matrix",
  "duplicate-value": "a list, a matrix dimension or include/exclude holds the same value twice",
  "engine-target-mismatch": "the engine cannot drive this kind of target",
  "invalid-together":
    "a { together } group of targets mixes target kinds, runs on client hosts, or has an engine that cannot run several targets at once",
  "unsupported-op": "the engine does not support the operation",
  "param-not-applicable": "the parameter has no meaning for the engine",
  "bs-exceeds-size": "the block size is larger than the data size",
  "not-destructive": "a block device would be written without destructive: true",
  "no-endpoint": "an object or IPFS target has neither an endpoint nor launch",
  "conflicting-keys": "two keys that exclude each other are both set",
  "missing-runtime": "steady-state detection needs a duration",
  "longer-than-duration": "a ramp or steady-state window does not fit into the duration",
  "metric-not-reported": "an expectation checks a metric the workload's engine does not report",
  "track-not-one-case": "a workload's rounds.track.where selects no case of it, or several",
  "empty-matrix": "the matrix excludes every combination",
  "too-many-cases": "the plan expands to more cases than the limit",
  "invalid-set":
    "a --set, --hosts or --only option that cannot apply (malformed, or naming what the spec lacks)",
  "file-not-found": "the spec file cannot be read",
  "literal-secret": "a credential is written into the spec instead of ${env:NAME} (warning)",
  "matches-nothing": "an expectation or filter matches no case (warning)",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
