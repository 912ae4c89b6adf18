import type { VariableSource } from '@mcppipe/config';
import { expandVariables, redactUrl, redactUrlsIn } from '@mcppipe/config';
import type { UpstreamSpec } from './types.js';

const REDACTED = '[redacted]';

/**
 * A copy of a spec safe to log: header values and environment values are replaced by `[redacted]`, the URL's
 * userinfo, query and fragment too (`@mcppipe/config`'s `redactUrl`); names, commands and arguments are kept.
 *
 * @param spec - an upstream spec (or undefined)
 * @returns the redacted copy
 * @example
 * ```ts
 * logger.info({ spec: redactSpec(spec) }, 'starting');
 * ```
 */
export function redactSpec(spec: UpstreamSpec | undefined): Record<string, unknown> | undefined {
  if (spec === undefined) return undefined;
  const hide = (map: Record<string, string> | undefined) =>
    map && Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]));
  if (spec.transport === 'http') {
    return { ...spec, url: redactUrl(spec.url), ...(spec.headers && { headers: hide(spec.headers) }) };
  }
  return { ...spec, ...(spec.env && { env: hide(spec.env) }) };
}

/**
 * An error text about an upstream, safe to record and show: every occurrence of the upstream's URL (as configured
 * and after `${VAR}` expansion, as written and as `fetch` prints it) is replaced by its `redactUrl` form. Errors
 * thrown by `fetch` and the SDK embed the full URL (`…includes credentials: http://user:pw@host/mcp?token=…`).
 *
 * @param text - an error message (`describeError(err)`, a death reason)
 * @param spec - the upstream's spec; texts about stdio upstreams are returned unchanged
 * @param vars - the variables the URL was expanded with (omit to match the configured URL only)
 * @returns the text without the URL's userinfo, query and fragment
 * @example Where an error is recorded
 * ```ts
 * lastError = redactError(describeError(err), spec, process.env);
 * ```
 */
export function redactError(text: string, spec: UpstreamSpec, vars?: VariableSource): string {
  if (spec.transport !== 'http') return text;
  const urls = [spec.url];
  if (vars !== undefined) {
    try {
      urls.push(expandVariables(spec.url, vars));
    } catch {
      // an unset variable: that attempt failed before any URL was used
    }
  }
  return redactUrlsIn(text, urls);
}
