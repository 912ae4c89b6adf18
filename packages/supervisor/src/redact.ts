import type { UpstreamSpec } from './types.js';

const REDACTED = '[redacted]';

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = REDACTED;
    if (u.username) u.username = REDACTED;
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * A copy of a spec safe to log: header values, environment values and URL credentials are replaced by
 * `[redacted]`; names, commands and arguments are kept.
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
