import { McpPipeError } from '@mcppipe/errors';

/** The error codes `@mcppipe/tunnel` throws or reports (documented in docs/errors.md). */
export type TunnelErrorCode =
  | 'MCPP_TUNNEL_OFFLINE'
  | 'MCPP_TUNNEL_BAD_KEY'
  | 'MCPP_TUNNEL_SUBDOMAIN_TAKEN'
  | 'MCPP_TUNNEL_INVALID_SUBDOMAIN'
  | 'MCPP_TUNNEL_REFUSED'
  | 'MCPP_TUNNEL_NO_RELAY'
  | 'MCPP_TUNNEL_INVALID_OPTIONS';

/** The codes of a permanent refusal: the client stops retrying when it sees one. */
export type TunnelRefusalCode = Exclude<
  TunnelErrorCode,
  'MCPP_TUNNEL_OFFLINE' | 'MCPP_TUNNEL_INVALID_OPTIONS'
>;

/**
 * The error `TunnelRegistry.forward` and `Tunnel.request` throw when no live tunnel serves the address.
 *
 * @param subdomain - the subdomain asked for, when known
 * @returns a `MCPP_TUNNEL_OFFLINE` error with `data: { subdomain }`
 */
export function tunnelOffline(subdomain?: string): McpPipeError<'MCPP_TUNNEL_OFFLINE'> {
  const what = subdomain === undefined ? 'this address' : `subdomain "${subdomain}"`;
  return new McpPipeError(
    'MCPP_TUNNEL_OFFLINE',
    `no tunnel is connected for ${what}: start \`mcppipe up --tunnel\` or wait for it to reconnect`,
    { data: { subdomain } },
  );
}

/**
 * The error for an invalid option.
 *
 * @param field - the option name
 * @param rule - what the value must be
 * @param value - the rejected value
 * @returns a `MCPP_TUNNEL_INVALID_OPTIONS` error naming the option
 */
export function invalidOption(
  field: string,
  rule: string,
  value: unknown,
): McpPipeError<'MCPP_TUNNEL_INVALID_OPTIONS'> {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new McpPipeError('MCPP_TUNNEL_INVALID_OPTIONS', `${field}: ${rule}, got ${shown}`, {
    data: { field },
  });
}

/**
 * The HTTP status the relay answers each refusal with on the upgrade request (`MCPP_TUNNEL_NO_RELAY`: what a server
 * that is no relay typically answers, the client's reading of it).
 */
export const refusalStatus: Readonly<Record<TunnelRefusalCode, number>> = {
  MCPP_TUNNEL_BAD_KEY: 401,
  MCPP_TUNNEL_REFUSED: 403,
  MCPP_TUNNEL_SUBDOMAIN_TAKEN: 409,
  MCPP_TUNNEL_INVALID_SUBDOMAIN: 400,
  MCPP_TUNNEL_NO_RELAY: 404,
};

/**
 * Maps an HTTP answer to the upgrade request (its status, and the code in its JSON body, if any) to a refusal code;
 * undefined for a transient failure that the client retries: 5xx (a relay restarting or behind a proxy whose
 * upstream is down), 408 and 429. The relay's own refusals are 400, 401, 403 and 409; any other answer (404, 405,
 * 200, a redirect…) comes from a server that is no relay, or from a wrong path: `MCPP_TUNNEL_NO_RELAY`, permanent.
 *
 * @param status - the HTTP status of the upgrade response
 * @param bodyCode - `error.code` of the JSON body, if it had one
 * @returns the refusal code, or undefined when the client should retry
 */
export function refusalCodeOf(status: number, bodyCode: unknown): TunnelRefusalCode | undefined {
  if (status >= 500 || status === 408 || status === 429) return undefined;
  if (status !== 400 && status !== 401 && status !== 403 && status !== 409) return 'MCPP_TUNNEL_NO_RELAY';
  if (typeof bodyCode === 'string' && Object.hasOwn(refusalStatus, bodyCode)) {
    return bodyCode as TunnelRefusalCode;
  }
  if (status === 401) return 'MCPP_TUNNEL_BAD_KEY';
  if (status === 409) return 'MCPP_TUNNEL_SUBDOMAIN_TAKEN';
  if (status === 400) return 'MCPP_TUNNEL_INVALID_SUBDOMAIN';
  return 'MCPP_TUNNEL_REFUSED';
}
