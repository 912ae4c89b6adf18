import { SEPARATOR } from './defaults.js';
import { notNamespacedError, quote } from './errors.js';
import { isValidUpstreamName, validateUpstreamName } from './upstreamName.js';

/** An exposed name split back into its parts: the result of {@link splitName}. */
export interface SplitName {
  /** The upstream name: the text before the first `__` (always a valid upstream name). */
  readonly upstream: string;
  /** The original tool or prompt name: everything after the first `__`, verbatim (may contain `__`, may be empty). */
  readonly name: string;
}

/**
 * Exposes a tool or prompt name of an upstream as `<upstream>__<name>` (DESIGN.md A1).
 *
 * `name` is taken verbatim: it may contain `__`, be empty, or hold any Unicode. For every valid
 * `upstream` and every string `name`, `splitName(prefixName(upstream, name))` gives back both parts.
 * The result may exceed the length limits of model APIs; see `fitName`.
 *
 * @param upstream - a valid upstream name
 * @param name - the upstream's original tool or prompt name
 * @returns the exposed name `${upstream}__${name}`
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 *
 * @example Prefixing a tool name
 * ```ts
 * prefixName('filesystem', 'read_file'); // 'filesystem__read_file'
 * prefixName('a', 'b__c');               // 'a__b__c'
 * ```
 */
export function prefixName(upstream: string, name: string): string {
  validateUpstreamName(upstream);
  return `${upstream}${SEPARATOR}${name}`;
}

/**
 * Splits an exposed tool or prompt name on its first `__` into the upstream name and the original name
 * (DESIGN.md A1). Because upstream names never contain `__` nor end with `_`, the first `__` is always the
 * one `prefixName` inserted, and an original name containing `__` survives verbatim in the tail.
 *
 * @param exposed - an exposed name, as an agent sends it in `tools/call` or `prompts/get`
 * @returns the upstream name and the original name
 * @throws McpPipeError `MCPP_NS_NOT_NAMESPACED` when `exposed` has no `__` or the text before the first
 *   `__` is not a valid upstream name; `data.exposed` holds the input
 *
 * @example Splitting names
 * ```ts
 * splitName('filesystem__read_file'); // { upstream: 'filesystem', name: 'read_file' }
 * splitName('a__b__c');               // { upstream: 'a', name: 'b__c' }
 * splitName('read_file');             // throws MCPP_NS_NOT_NAMESPACED
 * ```
 */
export function splitName(exposed: string): SplitName {
  const at = exposed.indexOf(SEPARATOR);
  if (at < 0) throw notNamespacedError(exposed, 'it contains no "__"');
  const upstream = exposed.slice(0, at);
  if (!isValidUpstreamName(upstream)) {
    throw notNamespacedError(
      exposed,
      `the part before the first "__", ${quote(upstream)}, is not a valid upstream name`,
    );
  }
  return { upstream, name: exposed.slice(at + SEPARATOR.length) };
}
