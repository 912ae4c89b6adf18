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

/**
 * JSON-RPC error codes an upstream answers that count towards the trip rule (DESIGN.md A12): it could not read a
 * request we serialized ourselves (-32700 parse error, -32600 invalid request), so its protocol handling is broken.
 * Every other error response does not count: -32602 invalid params and -32601 method not found are caused by the
 * agent's request; -32603 and application codes are what SDK servers answer when a handler throws (the server is
 * alive and answering).
 */
const UPSTREAM_FAULT_CODES: ReadonlySet<number> = new Set([-32700, -32600]);

/** Whether a JSON-RPC error response counts as a failure of the upstream itself (see `UPSTREAM_FAULT_CODES`). */
export function isUpstreamFault(err: unknown): boolean {
  return err instanceof ProtocolError && UPSTREAM_FAULT_CODES.has(err.code);
}

/**
 * Whether a call failed here, before anything reached the upstream, because of the agent's request itself: the
 * message could not be serialized (`RangeError`: nested too deeply for `JSON.stringify`, or too large for a string),
 * anywhere in the `cause` chain. Never a failure of the upstream (DESIGN.md A12).
 *
 * @param err - what the SDK client rejected with
 */
export function isLocalRequestError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    if (e instanceof RangeError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** @internal The typed error for {@link isLocalRequestError}: no internal text (no stack-overflow message). */
export function badRequest(upstream: string, err: unknown): McpPipeError {
  return new McpPipeError(
    'MCPP_SUP_BAD_REQUEST',
    `the request to upstream "${upstream}" could not be sent: it nests too deeply or is too large; send flatter, smaller arguments`,
    { cause: err, data: { upstream } },
  );
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
 * Whether a failed call counts towards the trip rule (DESIGN.md A12): transport failures, timeouts and the upstream's
 * -32700/-32600 answers do; other JSON-RPC error responses (-32602, -32601, -32603, application codes), local SDK
 * refusals (an era gate, a missing capability) and requests that could not be serialized here do not.
 */
export function isTransportFailure(err: unknown): boolean {
  if (err instanceof ProtocolError) return isUpstreamFault(err);
  if (isLocalRequestError(err)) return false;
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
