import { isMcpPipeError } from '@mcppipe/errors';
import type { OAuthErrorData } from './errors.js';
import type { RawParams } from './params.js';

/** A request as the endpoint handlers need it; a web framework adapter fills it in. */
export interface OAuthHttpRequest {
  /** Parsed query string (repeated names as arrays). */
  query?: RawParams;
  /** Parsed `application/x-www-form-urlencoded` body, or undefined for any other content type. */
  form?: RawParams;
  /** Parsed `application/json` body (only `/register` reads it). */
  json?: unknown;
  /** Request headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The client address (the framework's `req.ip`, which honours `trustProxy`). */
  ip: string;
}

/** A response for the adapter to send as is. */
export interface OAuthHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Each a full `Set-Cookie` value. */
  cookies?: string[];
  body?: string;
}

/** Headers of every token, registration and metadata-error response (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * A JSON response.
 *
 * @param status - HTTP status
 * @param body - serialized with `JSON.stringify`
 * @param headers - extra headers
 * @returns the response
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): OAuthHttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * Turns a thrown error into an RFC 6749 §5.2 error response. `MCPP_OAUTH_PROTOCOL` errors keep their code
 * and status; a failed state write or an unreachable shared store (`MCPP_STORE_UNAVAILABLE`, `MCPP_STORE_CONFLICT`)
 * becomes 503 `temporarily_unavailable`; anything else is rethrown.
 *
 * @param err - the caught error
 * @param basicUsed - whether the request used HTTP Basic (then a 401 carries `WWW-Authenticate: Basic`)
 * @returns the response
 */
export function oauthErrorResponse(err: unknown, basicUsed = false): OAuthHttpResponse {
  if (isMcpPipeError(err, 'MCPP_OAUTH_PROTOCOL')) {
    const { error, status } = err.data as OAuthErrorData;
    const extra: Record<string, string> = { ...NO_STORE };
    if (status === 401 && basicUsed) extra['www-authenticate'] = 'Basic realm="mcppipe"';
    return jsonResponse(status, { error, error_description: err.message }, extra);
  }
  if (isMcpPipeError(err, 'MCPP_STORE_UNAVAILABLE') || isMcpPipeError(err, 'MCPP_STORE_CONFLICT')) {
    return jsonResponse(
      503,
      {
        error: 'temporarily_unavailable',
        error_description: 'the shared state store is unreachable or busy; try again',
      },
      { ...NO_STORE, 'retry-after': '1' },
    );
  }
  if (isMcpPipeError(err, 'MCPP_OAUTH_STATE_WRITE_FAILED')) {
    return jsonResponse(
      503,
      { error: 'temporarily_unavailable', error_description: 'could not save state; try again' },
      { ...NO_STORE, 'retry-after': '5' },
    );
  }
  throw err;
}

/**
 * Reads one header as a single string (the first value when repeated).
 *
 * @param req - the request
 * @param name - lower-case header name
 * @returns the value, or undefined
 */
export function header(req: OAuthHttpRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Reads a cookie from the `Cookie` header.
 *
 * @param req - the request
 * @param name - the cookie name
 * @returns the value, or undefined
 */
export function readCookie(req: OAuthHttpRequest, name: string): string | undefined {
  const raw = header(req, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
