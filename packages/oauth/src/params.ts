import { oauthError } from './errors.js';

/** Request parameters as a web framework parses them: a repeated name becomes an array. */
export type RawParams = Record<string, unknown>;

/**
 * Reads one optional parameter. OAuth parameters must not repeat (RFC 6749 §3.1), so an array, or any
 * non-string, is `invalid_request`.
 *
 * @param params - the parsed query or form
 * @param name - the parameter
 * @returns the value, or undefined when absent or empty
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` `invalid_request`
 */
export function param(params: RawParams | undefined, name: string): string | undefined {
  const v = params?.[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw oauthError('invalid_request', `${name} must appear once`);
  if (v.length > 4096) throw oauthError('invalid_request', `${name} is too long`);
  return v;
}

/**
 * Reads one required parameter.
 *
 * @param params - the parsed query or form
 * @param name - the parameter
 * @returns the value
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` `invalid_request` when missing or repeated
 */
export function requiredParam(params: RawParams | undefined, name: string): string {
  const v = param(params, name);
  if (v === undefined) throw oauthError('invalid_request', `${name} is required`);
  return v;
}

const UNRESERVED_43_128 = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Whether a PKCE `code_verifier` or `code_challenge` has the RFC 7636 shape (43–128 unreserved characters).
 *
 * @param v - the value
 * @returns whether it is well-formed
 */
export function isPkceValue(v: string): boolean {
  return UNRESERVED_43_128.test(v);
}
