import type { McpPipeErrorCode } from '@mcppipe/errors';
import { McpPipeError, isMcpPipeError } from '@mcppipe/errors';
import type { Phase } from '@mcppipe/upstream-state';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';

/** The error codes `@mcppipe/supervisor` throws (documented in docs/errors.md). */
export type SupervisorErrorCode = Extract<McpPipeErrorCode, `MCPP_SUP_${string}`>;

/** `data` of `MCPP_SUP_UNAVAILABLE`: what an aggregator puts into its -32000 `upstream_unavailable` error. */
export interface UnavailableData {
  upstream: string;
  phase: Phase;
  /** Milliseconds until the next retry; 0 while an attempt runs; absent when `failed` (no retries). */
  retryAfterMs?: number;
}

/** @internal */
export function unavailable(upstream: string, phase: Phase, retryAfterMs: number | undefined): McpPipeError {
  const data: UnavailableData = { upstream, phase };
  if (retryAfterMs !== undefined) data.retryAfterMs = retryAfterMs;
  const when =
    phase === 'failed'
      ? 'recovery gave up; a fresh initialize retries it'
      : retryAfterMs
        ? `next attempt in ${retryAfterMs} ms`
        : 'an attempt is running';
  return new McpPipeError('MCPP_SUP_UNAVAILABLE', `upstream "${upstream}" is ${phase} (${when})`, { data });
}

/** @internal */
export function unknownUpstream(upstream: string): McpPipeError {
  return new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `no upstream named "${upstream}" is supervised`, {
    data: { upstream },
  });
}

/** @internal */
export function stoppedError(): McpPipeError {
  return new McpPipeError('MCPP_SUP_STOPPED', 'the supervisor was stopped');
}

/** A one-line message for any thrown value, with the cause's message appended when it adds something. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && !err.message.includes(cause) ? `${err.message}: ${cause}` : err.message;
}

/** Whether the upstream answered with a JSON-RPC error response (it is alive). */
export function isProtocolError(err: unknown): boolean {
  return err instanceof ProtocolError;
}

const NOT_A_TRANSPORT_FAILURE: ReadonlySet<string> = new Set([
  SdkErrorCode.CapabilityNotSupported,
  SdkErrorCode.MethodNotSupportedByProtocolVersion,
  SdkErrorCode.InvalidResult,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
  SdkErrorCode.ListPaginationExceeded,
]);

/**
 * Whether a failed call counts towards the trip rule: transport failures and timeouts do; JSON-RPC error responses
 * and local SDK refusals (an era gate, a missing capability) do not.
 */
export function isTransportFailure(err: unknown): boolean {
  if (err instanceof ProtocolError) return false;
  return !(err instanceof SdkError && NOT_A_TRANSPORT_FAILURE.has(err.code));
}

/** Whether an HTTP failure says the session is gone: 404, or 400 whose body mentions the session. */
export function isSessionExpired(err: unknown): boolean {
  if (!(err instanceof SdkHttpError)) return false;
  if (err.status === 404) return true;
  const text = err.data['text'];
  return err.status === 400 && typeof text === 'string' && /session/i.test(text);
}

/** The HTTP status of an SDK HTTP error, if it is one. */
export function httpStatus(err: unknown): number | undefined {
  return err instanceof SdkHttpError ? err.status : undefined;
}

/** Configuration errors are fatal for an upstream: retrying cannot fix them. */
export function isFatal(err: unknown): boolean {
  return isMcpPipeError(err, 'MCPP_CFG_UNSET_VARIABLE') || isMcpPipeError(err, 'MCPP_CFG_INVALID');
}

/**
 * Socket errors that say nothing is there (any more) to answer: the HTTP upstream's server is gone. Not a reset:
 * a keep-alive socket the server closed while a request was on its way fails that way on a healthy server.
 */
const CONNECTION_GONE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failed HTTP request could not reach the upstream at all (connection refused, host or network unreachable,
 * anywhere in the `cause` chain, as `fetch` reports it): the connection is as dead as an exited process.
 *
 * @param err - what the SDK client rejected with
 */
export function isConnectionGone(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_GONE.has(code)) return true;
    const errors = (e as { errors?: unknown }).errors; // AggregateError (IPv4 and IPv6 both refused)
    if (Array.isArray(errors) && errors.some((x) => isConnectionGone(x))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
