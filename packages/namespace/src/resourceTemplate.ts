import { TEMPLATE_SCHEME_PREFIX } from './defaults.js';
import { notWrappedTemplateError } from './errors.js';
import { parseWrapped } from './resourceUri.js';
import { validateUpstreamName } from './upstreamName.js';

/** A wrapped resource template taken apart: the result of {@link unwrapResourceTemplate}. */
export interface UnwrappedResourceTemplate {
  /** The upstream that owns the template. */
  readonly upstream: string;
  /** The upstream's own RFC 6570 template, verbatim. */
  readonly template: string;
}

/**
 * Wraps an upstream's RFC 6570 resource template as `mcppipe+t://<upstream>/<template>`: the template is
 * appended verbatim, so every expression stays visible and the agent expands it as usual.
 *
 * For every template `T` and variables `V`, `expand(wrapResourceTemplate(up, T), V)` is
 * `mcppipe+t://<up>/` followed by `expand(T, V)`, because the prefix is a literal made of characters RFC 6570
 * copies unchanged; {@link unwrapResourceUri} strips it and gives `{ upstream: up, uri: expand(T, V) }`.
 * The `mcppipe+t` scheme keeps these apart from `wrapResourceUri`'s `mcppipe://` URIs. Why the template
 * is not base64url-encoded piecewise: see the package README, "Resource templates".
 *
 * @param upstream - a valid upstream name
 * @param template - the upstream's `uriTemplate`, with or without a scheme; any string
 * @returns the wrapped template
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 *
 * @example Wrapping and expanding a template
 * ```ts
 * const t = wrapResourceTemplate('gh', 'repo://{owner}/{repo}/issues{/id}');
 * // 'mcppipe+t://gh/repo://{owner}/{repo}/issues{/id}'
 * // the agent expands it to 'mcppipe+t://gh/repo://octo/hello/issues/7', and then
 * unwrapResourceUri('mcppipe+t://gh/repo://octo/hello/issues/7');
 * // { upstream: 'gh', uri: 'repo://octo/hello/issues/7' }
 * ```
 */
export function wrapResourceTemplate(upstream: string, template: string): string {
  validateUpstreamName(upstream);
  return `${TEMPLATE_SCHEME_PREFIX}${upstream}/${template}`;
}

/**
 * Takes a wrapped resource template apart into the upstream and its original template, e.g. for
 * `completion/complete` requests whose `ref` names a template. (To unwrap a template's *expansion*, a URI
 * the agent reads, use {@link unwrapResourceUri}.)
 *
 * @param wrapped - a template produced by {@link wrapResourceTemplate}
 * @returns the upstream and its original template
 * @throws McpPipeError `MCPP_NS_NOT_WRAPPED` unless `wrapped` is `mcppipe+t://<upstream>/<template>` with a
 *   valid upstream name; `data.template` holds the input
 *
 * @example Unwrapping a completion reference
 * ```ts
 * unwrapResourceTemplate('mcppipe+t://gh/repo://{owner}/{repo}');
 * // { upstream: 'gh', template: 'repo://{owner}/{repo}' }
 * ```
 */
export function unwrapResourceTemplate(wrapped: string): UnwrappedResourceTemplate {
  if (!wrapped.startsWith(TEMPLATE_SCHEME_PREFIX)) {
    throw notWrappedTemplateError(wrapped, `it does not start with "${TEMPLATE_SCHEME_PREFIX}"`);
  }
  const parts = parseWrapped(wrapped, TEMPLATE_SCHEME_PREFIX);
  if (!parts.ok) throw notWrappedTemplateError(wrapped, parts.reason);
  return { upstream: parts.upstream, template: parts.rest };
}
