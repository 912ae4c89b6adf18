/**
 * The small, table-driven value rules shared by the TOML upstreams file and `mcp.json`. Each rule
 * checks one value, records a path-prefixed error and returns the normalised value (or `undefined`).
 * The JSON Schemas in `schema/` state the same rules; `schema.test.ts` keeps them equal.
 */
import type { Issues, PathSegment } from './issues.js';
import { describeType, isRecord, unknownKeyMessage } from './issues.js';
import { hasUrlCredentials } from './redactUrl.js';
import type { ProtocolPreference } from './types.js';

/** Checks one value at `path`; returns the normalised value, or `undefined` after recording an error. */
export type Rule<T> = (value: unknown, path: PathSegment[], issues: Issues) => T | undefined;

/** How the surrounding format names a table: TOML says "table", JSON says "object". */
export type ObjectWord = 'table' | 'object';

/** A non-empty string. */
export const nonEmptyString: Rule<string> = (value, path, issues) => {
  if (typeof value === 'string' && value.trim() !== '') return value;
  issues.error(
    path,
    `must be a non-empty string${typeof value === 'string' ? '' : `, not ${describeType(value, 'object')}`}`,
  );
  return undefined;
};

const CREDENTIALS_REASON =
  'must not contain a user name or password ("user:password@"): fetch refuses such a URL, and it would be shown in logs';

/**
 * Why a URL with a user name or password is refused (`fetch` cannot send it, and it would be shown), and the header
 * to send instead: the problem {@link httpUrl} records for a file.
 */
export const URL_CREDENTIALS_PROBLEM = `${CREDENTIALS_REASON}; send credentials as a header instead: headers = { Authorization = "Bearer \${TOKEN}" } in an upstreams file, "headers": { "Authorization": "Bearer \${TOKEN}" } in mcp.json`;

/** The same problem for an `--upstream` flag, which cannot carry headers. */
export const URL_CREDENTIALS_FLAG_PROBLEM = `the URL ${CREDENTIALS_REASON}; --upstream sends no headers: list this upstream in an --upstreams-file with headers = { Authorization = "Bearer \${TOKEN}" }`;

/**
 * An `http:` or `https:` URL without a user name or password ({@link URL_CREDENTIALS_PROBLEM}). A URL that
 * contains `${VAR}` references (kept raw until spawn time) only has to start with the scheme or with a reference;
 * any other URL must parse.
 */
export const httpUrl: Rule<string> = (value, path, issues) => {
  const fail = (): undefined => {
    issues.error(
      path,
      `must be an http:// or https:// URL${typeof value === 'string' ? '' : `, not ${describeType(value, 'object')}`}`,
    );
    return undefined;
  };
  if (typeof value !== 'string') return fail();
  if (!/^(?:https?:\/\/|\$\{)/i.test(value)) return fail();
  if (hasUrlCredentials(value)) {
    issues.error(path, URL_CREDENTIALS_PROBLEM);
    return undefined;
  }
  if (value.includes('${')) return value;
  try {
    new URL(value);
  } catch {
    issues.error(path, 'must be a valid http:// or https:// URL');
    return undefined;
  }
  return value;
};

/** `true` or `false`. */
export const boolean: Rule<boolean> = (value, path, issues) => {
  if (typeof value === 'boolean') return value;
  issues.error(path, `must be true or false, not ${describeType(value, 'object')}`);
  return undefined;
};

/** A positive number of seconds, normalised to milliseconds. */
export const positiveSecondsToMs: Rule<number> = (value, path, issues) => {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.round(value * 1000);
  issues.error(path, 'must be a positive number of seconds');
  return undefined;
};

/** The protocol-era override. */
export const protocol: Rule<ProtocolPreference> = (value, path, issues) => {
  if (value === 'auto' || value === 'legacy' || value === 'modern') return value;
  issues.error(path, 'must be one of "auto", "legacy", "modern"');
  return undefined;
};

/** An array of strings (possibly empty). */
export const stringArray: Rule<string[]> = (value, path, issues) => {
  if (!Array.isArray(value)) {
    issues.error(path, `must be an array of strings, not ${describeType(value, 'object')}`);
    return undefined;
  }
  let ok = true;
  value.forEach((item, i) => {
    if (typeof item !== 'string') {
      issues.error([...path, i], `must be a string, not ${describeType(item, 'object')}`);
      ok = false;
    }
  });
  return ok ? (value as string[]) : undefined;
};

/** A table (TOML) or object (JSON) whose values are all strings. */
export function stringMap(word: ObjectWord): Rule<Record<string, string>> {
  return (value, path, issues) => {
    if (!isRecord(value)) {
      issues.error(
        path,
        `must be ${word === 'table' ? 'a table' : 'an object'} of strings, not ${describeType(value, word)}`,
      );
      return undefined;
    }
    let ok = true;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string') continue;
      issues.error([...path, key], `must be a string, not ${describeType(item, word)}`);
      ok = false;
    }
    // fromEntries defines own properties, so even a `__proto__` key stays an ordinary entry.
    return ok ? (Object.fromEntries(Object.entries(value)) as Record<string, string>) : undefined;
  };
}

/** One key of a server entry: its rule and, for transport-specific keys, the transport it belongs to. */
export interface FieldSpec {
  rule: Rule<unknown>;
  only?: 'stdio' | 'http';
}

/** What `checkFields` needs to phrase its messages. */
export interface FieldContext {
  /** The transport the entry selected; `undefined` when it selected none or both (no per-transport checks). */
  transport: 'stdio' | 'http' | undefined;
  /** The message for a key of the other transport: `only valid with stdio (this upstream sets http)`. */
  onlyMessage: (only: 'stdio' | 'http') => string;
}

/**
 * Checks every key of `entry` against `fields`: unknown keys (with "did you mean"), keys of the other
 * transport, and each value's rule.
 *
 * @returns the normalised values of the keys that passed
 */
export function checkFields(
  entry: Record<string, unknown>,
  fields: Readonly<Record<string, FieldSpec>>,
  context: FieldContext & { issues: Issues; path: PathSegment[] },
): Record<string, unknown> {
  const { path } = context;
  const out: Record<string, unknown> = {};
  const known = Object.keys(fields);
  for (const [key, value] of Object.entries(entry)) {
    const spec = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (spec === undefined) {
      context.issues.error([...path, key], unknownKeyMessage(key, known));
      continue;
    }
    if (spec.only !== undefined && context.transport !== undefined && spec.only !== context.transport) {
      context.issues.error([...path, key], context.onlyMessage(spec.only));
      continue;
    }
    const normalised = spec.rule(value, [...path, key], context.issues);
    if (normalised !== undefined) out[key] = normalised;
  }
  return out;
}
