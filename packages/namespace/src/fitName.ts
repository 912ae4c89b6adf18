import { FIT_HASH_LENGTH, SEPARATOR, exposedNameLimits } from './defaults.js';
import { prefixName } from './exposedName.js';

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

/**
 * Fits an exposed name into a length budget: model APIs reject tool names over 64 characters (Cursor: 60).
 *
 * Returns `prefixName(upstream, name)` when it fits. Otherwise returns
 * `<upstream>__<head>-<hash>`: `<head>` is the longest prefix of `name` (cut between code points) that
 * fits, `<hash>` is 8 base36 characters hashing the full exposed name (FNV-1a 64, see the README). The
 * result is deterministic, never longer than `maxLength`, and always starts with `<upstream>__`, so
 * `splitName` still finds the upstream; the aggregator resolves the shortened name through its upstream
 * tool table. Distinct names give distinct results unless their hashes collide (about 41 bits).
 *
 * @param upstream - a valid upstream name
 * @param name - the upstream's original tool or prompt name
 * @param options - `maxLength` (default 64)
 * @returns the exposed name, at most `maxLength` long
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 * @throws RangeError when `maxLength` is not an integer of at least `upstream.length + 11`
 *
 * @example Shortening a long tool name
 * ```ts
 * fitName('gh', 'read_file'); // 'gh__read_file'
 * fitName('github', 'x'.repeat(80), { maxLength: exposedNameLimits.cursor });
 * // 'github__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-<8 base36 chars>' (60 characters)
 * ```
 */
export function fitName(upstream: string, name: string, options: FitNameOptions = {}): string {
  const full = prefixName(upstream, name);
  const maxLength = options.maxLength ?? exposedNameLimits.default;
  const minimum = upstream.length + SEPARATOR.length + 1 + FIT_HASH_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < minimum) {
    throw new RangeError(
      `fitName: maxLength must be an integer of at least ${minimum} for upstream ${JSON.stringify(upstream)}, got ${String(maxLength)}`,
    );
  }
  if (full.length <= maxLength) return full;
  const budget = maxLength - minimum;
  let head = '';
  for (const point of name) {
    if (head.length + point.length > budget) break;
    head += point;
  }
  return `${upstream}${SEPARATOR}${head}-${shortHash(full)}`;
}
