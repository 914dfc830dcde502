/**
 * What the language says about each target kind beyond its shape: which keys hold credentials, which kinds
 * can have benchspec launch their server, which kinds a write destroys. A typed record, so a new kind that
 * forgets an entry is a type error; rules and expansion read this table and never branch on a kind's name.
 * (The run-time side of each kind — preparation, shell code — is src/targets/<kind>/.)
 */
import type { Target, TargetKind } from "./schema.js";

export type TargetOf<K extends TargetKind> = Extract<Target, { kind: K }>;

export interface TargetKindFacts<T extends Target> {
  /** Keys whose value is a credential: written literally in a spec, it is warned about and never copied. */
  secrets: readonly (keyof T & string)[];
  /** For kinds that reach a server: the key of an existing server's address, or the server to launch. */
  server?: {
    addressKey: keyof T & string;
    launch: string;
    /** Why `fresh` needs `launch`, for kinds that have `fresh`. */
    freshNeedsLaunch?: string;
  };
  /** For kinds a write destroys: what the target is, and whether the spec agreed (`destructive: true`). */
  destructible?: { noun: string; place(target: T): string; consented(target: T): boolean };
  /**
   * For kinds a tool can be pointed at without benchspec on the host (fio's own servers): the directory the
   * target names, the same path on every host; undefined when the target names none. Kinds absent here
   * need benchspec's own steps where they run (a device's safety checks, a server's connection).
   */
  plainDirectory?(target: T): string | undefined;
}

const TARGET_KIND_FACTS: { [K in TargetKind]: TargetKindFacts<TargetOf<K>> } = {
  fs: { secrets: [], plainDirectory: (target) => target.path },
  block: {
    secrets: [],
    destructible: {
      noun: "block device",
      place: (target) => target.device,
      consented: (target) => target.destructive === true,
    },
  },
  s3: { secrets: ["accessKey", "secretKey"], server: { addressKey: "endpoint", launch: "minio" } },
  ipfs: {
    secrets: [],
    server: { addressKey: "api", launch: "kubo", freshNeedsLaunch: "an external node is never wiped" },
  },
};

export function targetKindFacts<K extends TargetKind>(kind: K): TargetKindFacts<TargetOf<K>> {
  return TARGET_KIND_FACTS[kind];
}

/**
 * For a kind a tool can use without benchspec on the host (plainDirectory): the directory the target names,
 * `path` undefined when it names none. Undefined for kinds that need benchspec's own steps where they run.
 */
export function plainDirectory(target: Target): { path: string | undefined } | undefined {
  const facts = targetKindFacts(target.kind) as TargetKindFacts<Target>;
  return facts.plainDirectory && { path: facts.plainDirectory(target) };
}

/** A target's value for a key its kind's facts name (the facts are typed per kind; the target is any kind). */
export function targetValue(target: Target, key: string): unknown {
  return (target as Readonly<Record<string, unknown>>)[key];
}

/**
 * What a write to `target` would destroy without the spec's consent ("block device /dev/sdb"), or
 * undefined when writing to it is allowed.
 */
export function unconsentedWrite(target: Target): { noun: string; place: string } | undefined {
  const destructible = targetKindFacts(target.kind).destructible;
  if (!destructible || destructible.consented(target)) return undefined;
  return { noun: destructible.noun, place: destructible.place(target) };
}
