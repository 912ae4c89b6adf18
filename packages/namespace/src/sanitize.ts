import { MAX_UPSTREAM_NAME_LENGTH, SANITIZE_PREFIX } from './defaults.js';

/** One key given to {@link sanitizeUpstreamNames} whose upstream name differs from it. */
export interface UpstreamRename {
  /** The key as found in the client's configuration. */
  readonly key: string;
  /** The upstream name it was given. */
  readonly name: string;
}

/** The result of {@link sanitizeUpstreamNames}. */
export interface SanitizedUpstreamNames {
  /** One valid, unique upstream name per key, in the order of the keys. */
  readonly names: readonly string[];
  /** The keys whose name differs from the key itself, in the order of the keys (for a warning). */
  readonly renames: readonly UpstreamRename[];
}

/** Cuts `s` to `max` characters and drops trailing `_` (a name must not end with one). */
function cut(s: string, max: number): string {
  return s.slice(0, max).replace(/_+$/, '');
}

/**
 * Turns a key found in an MCP client's configuration (`"GitHub Copilot"`, `"my__server"`, `"1password"`)
 * into a valid upstream name (DESIGN.md A11): lowercase; every character outside `[a-z0-9_-]` (counted by
 * code point) becomes `-`; runs of `_` collapse to one; `srv-` is prepended unless the result starts with
 * a letter; it is cut to 32 characters; trailing `_` are dropped.
 *
 * The result always passes `validateUpstreamName`, and sanitizing is idempotent: a valid name is returned
 * unchanged. Different keys may give the same name; {@link sanitizeUpstreamNames} makes them unique.
 *
 * @param key - any string
 * @returns a valid upstream name
 *
 * @example Sanitizing client keys
 * ```ts
 * sanitizeUpstreamName('GitHub Copilot'); // 'github-copilot'
 * sanitizeUpstreamName('my__server');     // 'my_server'
 * sanitizeUpstreamName('1password');      // 'srv-1password'
 * ```
 */
export function sanitizeUpstreamName(key: string): string {
  let s = '';
  for (const point of key.toLowerCase()) s += /^[a-z0-9_-]$/.test(point) ? point : '-';
  s = s.replace(/_{2,}/g, '_');
  if (!/^[a-z]/.test(s)) s = SANITIZE_PREFIX + s;
  return cut(s, MAX_UPSTREAM_NAME_LENGTH);
}

/** Code-unit order, independent of locale. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sanitizes the keys of detected client servers into valid upstream names that are unique (DESIGN.md A11).
 *
 * Each key gets `sanitizeUpstreamName(key)`; a key that is already a valid name keeps it first. When
 * several keys sanitize to the same name, the one that sorts first (by code unit) keeps it and the others
 * get `-2`, `-3`, … (the base cut so the result stays within 32 characters), skipping names already taken.
 * The mapping from key to name depends only on the set of keys, not on their order; equal keys get
 * distinct names in order of appearance.
 *
 * @param keys - the client configuration keys
 * @returns `names`, aligned with `keys`, and `renames`, the keys whose name differs from the key
 *
 * @example Two keys that collide
 * ```ts
 * sanitizeUpstreamNames(['GitHub', 'github', 'my files']);
 * // { names: ['github-2', 'github', 'my-files'],
 * //   renames: [{ key: 'GitHub', name: 'github-2' }, { key: 'my files', name: 'my-files' }] }
 * ```
 */
export function sanitizeUpstreamNames(keys: readonly string[]): SanitizedUpstreamNames {
  const names = new Array<string>(keys.length);
  const taken = new Set<string>();
  const order = keys.map((key, index) => ({ key, index, base: sanitizeUpstreamName(key) }));
  order.sort((a, b) => compareKeys(a.key, b.key) || a.index - b.index);
  const pending: typeof order = [];
  // Pass 1: keys that are valid names keep them.
  for (const entry of order) {
    if (entry.base === entry.key && !taken.has(entry.key)) {
      taken.add(entry.key);
      names[entry.index] = entry.key;
    } else pending.push(entry);
  }
  // Pass 2: the rest take their sanitized name, or the first free numbered variant of it.
  for (const entry of pending) {
    let name = entry.base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `-${n}`;
      name = cut(entry.base, MAX_UPSTREAM_NAME_LENGTH - suffix.length) + suffix;
    }
    taken.add(name);
    names[entry.index] = name;
  }
  const renames = keys.flatMap((key, i) => (names[i] === key ? [] : [{ key, name: names[i]! }]));
  return { names, renames };
}
