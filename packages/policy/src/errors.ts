import { McpPipeError } from '@mcppipe/errors';
import type { LimitInfo } from './types.js';

/** The error codes `@mcppipe/policy` throws (documented in docs/errors.md). */
export type PolicyErrorCode = 'MCPP_POLICY_INVALID' | 'MCPP_POLICY_RATE_LIMITED';

/**
 * JSON-RPC code of a rate-limit refusal: our own, outside the range JSON-RPC reserves (-32768…-32000, which also
 * holds every code MCP defines: -32002, -32042, …) and clear of MCP's `-1`. Chosen to read as HTTP 429.
 */
export const RATE_LIMITED_CODE = -31429;

/** `data` of a rate-limit refusal, on the wire and in `MCPP_POLICY_RATE_LIMITED`. */
export interface RateLimitedData {
  /** Milliseconds until the call would be accepted (integer ≥ 1). */
  retryAfterMs: number;
  /** The limit that refused the call (the one with the longest wait). */
  limit: LimitInfo;
}

/** A JSON-RPC error object (`{ code, message, data }`), for hosts to throw as their SDK's protocol error. */
export interface JsonRpcErrorObject<D = unknown> {
  code: number;
  message: string;
  data: D;
}

/**
 * `MCPP_POLICY_INVALID` for a configuration with problems.
 *
 * @param errors - every problem, each starting with its dot-path
 * @returns the error; its message is the first problem (plus a count of the rest), `data.errors` lists all
 */
export function invalidPolicyError(errors: readonly string[]): McpPipeError<'MCPP_POLICY_INVALID'> {
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more: ${errors.slice(1).join('; ')})` : '';
  return new McpPipeError('MCPP_POLICY_INVALID', `${errors[0] ?? 'invalid policy'}${more}`, {
    data: { errors: [...errors] },
  });
}

function refusalMessage(name: string, data: RateLimitedData): string {
  const { scope, rate, burst } = data.limit;
  const secs = Math.ceil(data.retryAfterMs / 1000);
  if (scope === 'all')
    return `rate_limited: too many tool calls (limit ${rate} for all tools and callers together, burst ${burst}); ${JSON.stringify(name)} was not called; retry in ${secs} s`;
  const per = { caller: 'per caller', tool: 'per tool', 'caller+tool': 'per caller and tool' }[scope];
  return `rate_limited: too many calls to ${JSON.stringify(name)} (limit ${rate} ${per}, burst ${burst}); retry in ${secs} s`;
}

/**
 * `MCPP_POLICY_RATE_LIMITED` for a refused call, for hosts that throw local errors and map them at the wire.
 *
 * @param name - the exposed tool name the agent called
 * @param data - `retryAfterMs` and `limit` from the refusal of {@link Limiter.take}
 * @returns the error to throw
 */
export function rateLimitedError(
  name: string,
  data: RateLimitedData,
): McpPipeError<'MCPP_POLICY_RATE_LIMITED'> {
  return new McpPipeError('MCPP_POLICY_RATE_LIMITED', refusalMessage(name, data), {
    data: { retryAfterMs: data.retryAfterMs, limit: data.limit },
  });
}

/**
 * The JSON-RPC error an agent receives for a refused call: code {@link RATE_LIMITED_CODE} (-31429), a message
 * naming the tool, the limit and the wait, and `data: { retryAfterMs, limit }` (P2).
 *
 * @param name - the exposed tool name the agent called
 * @param data - `retryAfterMs` and `limit` from the refusal
 * @returns the error object
 *
 * @example With SDK v2
 * ```ts
 * const r = limiter.take(caller, name);
 * if (!r.ok) { const e = rateLimitedWireError(name, r); throw new ProtocolError(e.code, e.message, e.data); }
 * ```
 */
export function rateLimitedWireError(
  name: string,
  data: RateLimitedData,
): JsonRpcErrorObject<RateLimitedData> {
  return {
    code: RATE_LIMITED_CODE,
    message: refusalMessage(name, data),
    data: { retryAfterMs: data.retryAfterMs, limit: data.limit },
  };
}

/**
 * The `Retry-After` header value (whole seconds, rounded up, at least 1) for an HTTP-level 429.
 *
 * @param retryAfterMs - from the refusal
 * @returns seconds as a string
 */
export function retryAfterHeader(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}
