/** Shared string checks of the language: names, env references, control characters. */

export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
export const VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const NAME_RULE = 'a letter followed by letters, digits, "_" or "-" (at most 63 characters)';

const ENV_REF = /\$\{([^}]*)\}/g;

/** The `${env:NAME}` references in a string, or a message naming the first malformed `${…}`. */
/** Every ${env:NAME} in a value (strings at any depth), with the path below `path` where it is used. */
export function envRefsIn(value: unknown, path: string): { name: string; path: string }[] {
  if (typeof value === "string") {
    const refs = envRefs(value);
    return "names" in refs ? refs.names.map((name) => ({ name, path })) : [];
  }
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) => envRefsIn(inner, `${path}.${key}`));
  return [];
}

export function envRefs(text: string): { names: string[] } | { error: string } {
  const names: string[] = [];
  for (const match of text.matchAll(ENV_REF)) {
    const inner = match[1]!;
    const name = inner.startsWith("env:") ? inner.slice(4) : undefined;
    if (name === undefined || !ENV_NAME_PATTERN.test(name)) {
      return {
        error: `"\${${inner}}" is not a reference benchspec understands; only \${env:NAME} is substituted (at run time)`,
      };
    }
    names.push(name);
  }
  if (/\$\{(?![^}]*\})/.test(text)) return { error: 'unterminated "${"; only ${env:NAME} is substituted' };
  return { names };
}

/**
 * Why a server address is not an http(s) URL, or undefined when it is one. A value that starts with a
 * `${env:NAME}` reference gets its scheme from the environment and is checked when the run resolves it.
 */
export function httpUrlProblem(text: string, example: string): string | undefined {
  // Empty values and control characters have their own errors; a leading reference gives the scheme later.
  if (text === "" || hasControlChars(text) || /^\$\{env:/.test(text)) return undefined;
  const probe = text.replace(ENV_REF, "x");
  if (/^https?:\/\/[^\s/?#]+/i.test(probe)) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(probe)?.[1];
  const why = scheme && !/^https?$/i.test(scheme) ? ` (the scheme is "${scheme}")` : "";
  return `${JSON.stringify(text)} is not an http:// or https:// URL${why}; expected e.g. ${example} or \${env:NAME}`;
}

/** Substitutes `${env:NAME}` at run time; a missing variable is reported by name, never by value. */
export function resolveEnvRefs(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(ENV_REF, (_, inner: string) => {
    const name = inner.slice(4);
    const value = env[name];
    if (value === undefined) throw new Error(`environment variable ${name} is not set`);
    return value;
  });
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function hasControlChars(text: string): boolean {
  return CONTROL.test(text);
}
