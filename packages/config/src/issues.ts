/**
 * Helpers for path-prefixed messages (STYLE.md §6: every message starts with its dot-path).
 */
import { DID_YOU_MEAN_DISTANCE } from './defaults.js';

/** One segment of a path into a document: an object key or an array index. */
export type PathSegment = string | number;

/**
 * Renders a path: identifier-like keys as `.key`, other keys as `["key"]`, indexes as `[0]`.
 * The empty path renders as `(root)`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === '' ? '(root)' : out;
}

/** Collects problems while a document is validated. */
export class Issues {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  error(path: readonly PathSegment[], message: string): void {
    this.errors.push(`${formatPath(path)}: ${message}`);
  }

  warn(path: readonly PathSegment[], message: string): void {
    this.warnings.push(`${formatPath(path)}: ${message}`);
  }
}

/** The edit distance between `a` and `b` (Levenshtein), for "did you mean". */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

const norm = (key: string): string => key.toLowerCase().replace(/[_-]/g, '');

/** How far `key` is from `candidate`: 0 for the same words (`startTimeoutSecs`), or a prefix (`start_timeout`). */
function closeness(key: string, candidate: string): number {
  const [a, b] = [norm(key), norm(candidate)];
  if (a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)))) return 0;
  return editDistance(key.toLowerCase(), candidate.toLowerCase());
}

/**
 * The known name closest to a mistyped one, for a "did you mean" hint: one with the same words (`start_timeout`
 * for `startTimeoutSecs`), a prefix of at least 4 letters, or within {@link DID_YOU_MEAN_DISTANCE} edits.
 *
 * @param key - the unknown name as given (a config key, or a flag without its dashes: `stdoi`)
 * @param known - the names that exist
 * @returns the closest known name, or undefined when none is close
 * @example
 * ```ts
 * closestName('stdoi', ['stdio', 'port']); // 'stdio'
 * ```
 */
export function closestName(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = closeness(key, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= DID_YOU_MEAN_DISTANCE && bestDistance < best.length
    ? best
    : undefined;
}

/**
 * yargs' `Unknown argument: confg` with a "did you mean" hint for each close flag ({@link closestName}), so both
 * command lines (`mcppipe`, `mcppipe-gateway`) suggest the same way (issue 13.11).
 *
 * @param message - yargs' failure message; any other message is returned unchanged
 * @param knownFlags - the flag names a user may mean, without dashes (`config`, `data-dir`)
 * @returns the message, with `(did you mean --config?)` for one unknown argument or
 *   `(--confg: did you mean --config?; …)` for several
 * @example
 * ```ts
 * withFlagSuggestions('Unknown argument: confg', ['config', 'port']);
 * // 'Unknown argument: confg (did you mean --config?)'
 * ```
 */
export function withFlagSuggestions(message: string, knownFlags: readonly string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(message);
  if (!m?.[1]) return message;
  const names = m[1].split(', ');
  const hints = names.flatMap((name) => {
    const best = closestName(name, knownFlags);
    if (!best) return [];
    return [names.length === 1 ? `did you mean --${best}?` : `--${name}: did you mean --${best}?`];
  });
  return hints.length > 0 ? `${message} (${hints.join('; ')})` : message;
}

/**
 * The message for an unknown key: `unknown key; did you mean "http"?` when a known key is close
 * ({@link closestName}), else the list of known keys.
 */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const best = closestName(key, known);
  if (best !== undefined) return `unknown key; did you mean ${JSON.stringify(best)}?`;
  return `unknown key; expected one of ${known.map((k) => JSON.stringify(k)).join(', ')}`;
}

/** Whether `value` is a plain table/object (not an array, a date or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A short type name for messages: `a number`, `an array`, `a table`. */
export function describeType(value: unknown, objectWord: 'object' | 'table'): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return `an ${objectWord}`.replace('an table', 'a table');
  if (typeof value === 'bigint') return 'a number';
  return `a ${typeof value}`.replace('a undefined', 'nothing');
}
