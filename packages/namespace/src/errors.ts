/**
 * The errors `@mcppipe/namespace` throws. Every code is listed, with its meaning, in
 * `@mcppipe/errors` (`packages/errors/src/codes.ts`) and `docs/errors.md`:
 *
 * - `MCPP_NS_INVALID_NAME`: an upstream name breaks the rule (DESIGN.md A6).
 * - `MCPP_NS_DUPLICATE_NAME`: two upstreams of one layout share a name (A6).
 * - `MCPP_NS_NOT_NAMESPACED`: an exposed name is not `<upstream>__<name>` (A1).
 * - `MCPP_NS_NOT_WRAPPED`: a resource URI or template was not produced by this codec (A2).
 * - `MCPP_NS_INVALID_URI`: a URI to wrap contains a lone UTF-16 surrogate, which UTF-8 cannot carry (A2).
 *
 * Messages quote the offending input (JSON-escaped, cut at 200 characters) and the rule it broke; `data`
 * carries the full input.
 */
import { McpPipeError } from '@mcppipe/errors';
import { TEMPLATE_SCHEME_PREFIX, UPSTREAM_NAME_RULE, URI_SCHEME_PREFIX } from './defaults.js';

const QUOTE_LIMIT = 200;

/** JSON-quotes `s` for a message, cut at {@link QUOTE_LIMIT} code units. */
export function quote(s: string): string {
  if (s.length <= QUOTE_LIMIT) return JSON.stringify(s);
  // Cut on a code-point boundary so the quoted text stays well-formed.
  let end = QUOTE_LIMIT;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${JSON.stringify(s.slice(0, end))}… (${s.length} characters)`;
}

/** `MCPP_NS_INVALID_NAME` for `name`. */
export function invalidNameError(name: string): McpPipeError<'MCPP_NS_INVALID_NAME', { name: string }> {
  return new McpPipeError(
    'MCPP_NS_INVALID_NAME',
    `upstream name ${quote(name)} is invalid: ${UPSTREAM_NAME_RULE}`,
    {
      data: { name },
    },
  );
}

/** `MCPP_NS_DUPLICATE_NAME` for `name`, seen `count` times. */
export function duplicateNameError(
  name: string,
  count: number,
): McpPipeError<'MCPP_NS_DUPLICATE_NAME', { name: string; count: number }> {
  return new McpPipeError(
    'MCPP_NS_DUPLICATE_NAME',
    `upstream name ${quote(name)} is used ${count} times: upstream names must be unique within a layout`,
    { data: { name, count } },
  );
}

/** `MCPP_NS_NOT_NAMESPACED` for `exposed`, with the reason. */
export function notNamespacedError(
  exposed: string,
  reason: string,
): McpPipeError<'MCPP_NS_NOT_NAMESPACED', { exposed: string }> {
  return new McpPipeError(
    'MCPP_NS_NOT_NAMESPACED',
    `name ${quote(exposed)} is not namespaced: expected "<upstream>__<name>" (${reason})`,
    { data: { exposed } },
  );
}

/** `MCPP_NS_NOT_WRAPPED` for a resource URI, with the reason. */
export function notWrappedUriError(
  uri: string,
  reason: string,
): McpPipeError<'MCPP_NS_NOT_WRAPPED', { uri: string }> {
  return new McpPipeError(
    'MCPP_NS_NOT_WRAPPED',
    `resource URI ${quote(uri)} is not wrapped: expected "${URI_SCHEME_PREFIX}<upstream>/<base64url of its UTF-8, no padding>" or "${TEMPLATE_SCHEME_PREFIX}<upstream>/<expanded template>" (${reason})`,
    { data: { uri } },
  );
}

/** `MCPP_NS_NOT_WRAPPED` for a resource template, with the reason. */
export function notWrappedTemplateError(
  template: string,
  reason: string,
): McpPipeError<'MCPP_NS_NOT_WRAPPED', { template: string }> {
  return new McpPipeError(
    'MCPP_NS_NOT_WRAPPED',
    `resource template ${quote(template)} is not wrapped: expected "${TEMPLATE_SCHEME_PREFIX}<upstream>/<template>" (${reason})`,
    { data: { template } },
  );
}

/** `MCPP_NS_INVALID_URI` for `uri`, whose lone surrogate sits at `index`. */
export function invalidUriError(
  uri: string,
  index: number,
): McpPipeError<'MCPP_NS_INVALID_URI', { uri: string; index: number }> {
  return new McpPipeError(
    'MCPP_NS_INVALID_URI',
    `resource URI ${quote(uri)} cannot be wrapped: it contains a lone UTF-16 surrogate at index ${index}, which UTF-8 cannot represent (the URI must be a well-formed string)`,
    { data: { uri, index } },
  );
}
