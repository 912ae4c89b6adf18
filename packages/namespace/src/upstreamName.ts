import { duplicateNameError, invalidNameError } from './errors.js';

/** `^[a-z][a-z0-9_-]{0,31}$`, no `__` anywhere, no `_` at the end. */
const VALID_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Whether `name` is a valid upstream name: it matches `^[a-z][a-z0-9_-]{0,31}$` (lowercase ASCII, starts
 * with a letter, 1 to 32 characters), does not contain the separator `__`, and does not end with `_`
 * (DESIGN.md A6).
 *
 * The last condition goes beyond the seed's wording on purpose: with a trailing `_`, exposed names stop
 * being unambiguous (`a_` + `x` and `a` + `_x` would both be exposed as `a___x`).
 *
 * @param name - a candidate upstream name
 * @returns true when `name` is valid
 *
 * @example Checking names
 * ```ts
 * isValidUpstreamName('filesystem'); // true
 * isValidUpstreamName('Search');     // false: uppercase
 * isValidUpstreamName('my__server'); // false: contains the separator
 * ```
 */
export function isValidUpstreamName(name: string): boolean {
  return VALID_NAME.test(name) && !name.includes('__') && !name.endsWith('_');
}

/**
 * Throws unless `name` is a valid upstream name (see {@link isValidUpstreamName}; DESIGN.md A6).
 *
 * @param name - a candidate upstream name
 * @returns nothing; returning at all means the name is valid
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when the name is invalid; the message quotes the name and the
 *   rule, `data.name` holds it
 *
 * @example Rejecting a name
 * ```ts
 * validateUpstreamName('Search');
 * // McpPipeError MCPP_NS_INVALID_NAME: upstream name "Search" is invalid:
 * //   must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"
 * ```
 */
export function validateUpstreamName(name: string): void {
  if (!isValidUpstreamName(name)) throw invalidNameError(name);
}

/**
 * Throws unless every name is a valid upstream name and no name occurs twice: the names of one layout
 * (DESIGN.md A6: "a duplicate is rejected loudly"). Names are checked in order; the first problem wins.
 *
 * @param names - the upstream names of one layout
 * @returns nothing; returning at all means the layout's names are valid and unique
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` for the first invalid name
 * @throws McpPipeError `MCPP_NS_DUPLICATE_NAME` for the first name that occurs more than once;
 *   `data` holds `{ name, count }`
 *
 * @example Rejecting a duplicate
 * ```ts
 * validateUpstreamNames(['search', 'filesystem']); // ok
 * validateUpstreamNames(['search', 'search']);
 * // McpPipeError MCPP_NS_DUPLICATE_NAME: upstream name "search" is used 2 times: …
 * ```
 */
export function validateUpstreamNames(names: Iterable<string>): void {
  const counts = new Map<string, number>();
  for (const name of names) {
    validateUpstreamName(name);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  for (const [name, count] of counts) if (count > 1) throw duplicateNameError(name, count);
}
