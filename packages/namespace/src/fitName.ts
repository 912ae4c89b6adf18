import {
  EXPOSED_NAME_CHARS,
  EXPOSED_NAME_REPLACEMENT,
  FIT_HASH_LENGTH,
  SEPARATOR,
  exposedNameLimits,
} from './defaults.js';
import { prefixName } from './exposedName.js';
import { validateUpstreamName } from './upstreamName.js';

/** Options for {@link fitName}. */
export interface FitNameOptions {
  /**
   * The longest exposed name allowed, in UTF-16 code units (characters, for ASCII names). An integer of at
   * least `upstream.length + 11`. Default: 64 (`exposedNameLimits.default`); Cursor: 60
   * (`exposedNameLimits.cursor`).
   */
  readonly maxLength?: number;
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
const HASH_MODULUS = 36n ** BigInt(FIT_HASH_LENGTH);

/**
 * The short stable hash of `fitName`: FNV-1a 64 over the UTF-16LE bytes of `text`, reduced modulo 36^8,
 * written in base36 (`0-9a-z`) and zero-padded to 8 characters. Part of the wire contract: do not change.
 */
export function shortHash(text: string): string {
  let h = FNV64_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    h = ((h ^ BigInt(unit & 0xff)) * FNV64_PRIME) & MASK64;
    h = ((h ^ BigInt(unit >>> 8)) * FNV64_PRIME) & MASK64;
  }
  return (h % HASH_MODULUS).toString(36).padStart(FIT_HASH_LENGTH, '0');
}

/** The `maxLength` option, checked against the upstream name. */
function checkedMaxLength(upstream: string, options: FitNameOptions): number {
  const maxLength = options.maxLength ?? exposedNameLimits.default;
  const minimum = upstream.length + SEPARATOR.length + 1 + FIT_HASH_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < minimum) {
    throw new RangeError(
      `fitName: maxLength must be an integer of at least ${minimum} for upstream ${JSON.stringify(upstream)}, got ${String(maxLength)}`,
    );
  }
  return maxLength;
}

/** Whether `full` (a prefixed name) is exposed as it is: within the budget and made of allowed characters. */
function fitsAsIs(full: string, maxLength: number): boolean {
  return full.length <= maxLength && EXPOSED_NAME_CHARS.test(full);
}

/**
 * The rewritten form `<upstream>__<head>-<hash>` of a name that does not fit as it is. `attempt` 0 hashes
 * the full exposed name (the wire contract of `fitName`); `fitNames` uses later attempts only when an
 * earlier candidate is already taken within the upstream's list.
 */
function rewrite(at: { upstream: string; name: string; maxLength: number }, attempt: number): string {
  const { upstream, name, maxLength } = at;
  const full = `${upstream}${SEPARATOR}${name}`;
  const budget = maxLength - (upstream.length + SEPARATOR.length + 1 + FIT_HASH_LENGTH);
  let head = '';
  for (const point of name) {
    if (head.length >= budget) break;
    head += EXPOSED_NAME_CHARS.test(point) ? point : EXPOSED_NAME_REPLACEMENT;
  }
  const hashed = attempt === 0 ? full : `${full}\u0000${attempt}`;
  return `${upstream}${SEPARATOR}${head}-${shortHash(hashed)}`;
}

/**
 * Fits an exposed name into what model APIs accept (DESIGN.md A15): `^[A-Za-z0-9_-]{1,64}$` (Cursor: at
 * most 60 characters).
 *
 * Returns `prefixName(upstream, name)` when it is at most `maxLength` long and made only of
 * `[A-Za-z0-9_-]`. Otherwise returns `<upstream>__<head>-<hash>`: `<head>` is the longest prefix of `name`
 * that fits, with every code point outside `[A-Za-z0-9_-]` written as `_`; `<hash>` is 8 base36
 * characters hashing the full exposed name `<upstream>__<name>` (FNV-1a 64, see the README). The result is
 * deterministic, matches `^[A-Za-z0-9_-]+$`, is never longer than `maxLength`, and always starts with
 * `<upstream>__`, so `splitName` still finds the upstream; the aggregator resolves a rewritten name
 * through its upstream tool table. Distinct names give distinct results unless their hashes collide (about
 * 41 bits) or one original name already looks like another's rewritten form; {@link fitNames} resolves
 * those cases for a whole list.
 *
 * @param upstream - a valid upstream name
 * @param name - the upstream's original tool or prompt name
 * @param options - `maxLength` (default 64)
 * @returns the exposed name, at most `maxLength` long, of characters `[A-Za-z0-9_-]`
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 * @throws RangeError when `maxLength` is not an integer of at least `upstream.length + 11`
 *
 * @example Shortening a long name and rewriting characters
 * ```ts
 * fitName('gh', 'read_file'); // 'gh__read_file'
 * fitName('cal', 'calendar.read'); // 'cal__calendar_read-<8 base36 chars>'
 * fitName('github', 'x'.repeat(80), { maxLength: exposedNameLimits.cursor });
 * // 'github__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-<8 base36 chars>' (60 characters)
 * ```
 */
export function fitName(upstream: string, name: string, options: FitNameOptions = {}): string {
  const full = prefixName(upstream, name);
  const maxLength = checkedMaxLength(upstream, options);
  return fitsAsIs(full, maxLength) ? full : rewrite({ upstream, name, maxLength }, 0);
}

/** Code-unit order, independent of locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Fits every tool (or every prompt) name of one upstream at once (DESIGN.md A15): like {@link fitName}
 * for each name, and guaranteed distinct. Names that fit as they are keep `<upstream>__<name>`. The others
 * get `fitName`'s form; when that is already taken (an original name that looks like a rewritten one, or a
 * hash collision), the hash is taken again over the full name and a counter until it is free. The result
 * depends only on the set of names, not on their order, so the same list gives the same exposed names on
 * every start.
 *
 * @param upstream - a valid upstream name
 * @param names - the upstream's original tool (or prompt) names; duplicates are mapped once
 * @param options - `maxLength` (default 64)
 * @returns original name → exposed name, in the order of `names`; the exposed names are distinct
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 * @throws RangeError when `maxLength` is not an integer of at least `upstream.length + 11`
 *
 * @example A name that looks like another's rewritten form
 * ```ts
 * const taken = fitName('a', 'x.y'); // 'a__x_y-<hash>'
 * const names = fitNames('a', ['x.y', taken.slice(3)]);
 * names.get(taken.slice(3)); // taken: it fits as it is, so it keeps its name
 * names.get('x.y');          // 'a__x_y-<another hash>'
 * ```
 */
export function fitNames(
  upstream: string,
  names: Iterable<string>,
  options: FitNameOptions = {},
): Map<string, string> {
  validateUpstreamName(upstream);
  const maxLength = checkedMaxLength(upstream, options);
  const exposed = new Map<string, string>();
  const taken = new Set<string>();
  const rest: string[] = [];
  for (const name of names) {
    if (exposed.has(name)) continue;
    const full = `${upstream}${SEPARATOR}${name}`;
    exposed.set(name, full); // keeps the input order; replaced below for rewritten names
    if (fitsAsIs(full, maxLength)) taken.add(full);
    else rest.push(name);
  }
  for (const name of [...new Set(rest)].sort(compareNames)) {
    let candidate = rewrite({ upstream, name, maxLength }, 0);
    for (let attempt = 1; taken.has(candidate); attempt++) {
      candidate = rewrite({ upstream, name, maxLength }, attempt);
    }
    taken.add(candidate);
    exposed.set(name, candidate);
  }
  return exposed;
}
