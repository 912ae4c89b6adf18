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

/**
 * A one-line message for any thrown value, with the cause's message appended when it adds something. An
 * `McpPipeError`'s message is written for the user and complete: its cause is not appended.
 *
 * @param err - any thrown value
 * @returns the message
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (isMcpPipeError(err)) return err.message;
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

const TLS_CODE =
  /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/;
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'UND_ERR_SOCKET',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The first socket or TLS error code in the `cause` chain (and in an `AggregateError`'s `errors`). */
function socketErrorCode(err: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || TLS_CODE.test(code))) return code;
  const errors = (err as { errors?: unknown }).errors; // AggregateError (IPv4 and IPv6 both tried)
  if (Array.isArray(errors))
    for (const e of errors as unknown[]) {
      const inner = socketErrorCode(e, depth + 1);
      if (inner !== undefined) return inner;
    }
  return socketErrorCode((err as { cause?: unknown }).cause, depth + 1);
}

/** The URL as it may be shown: no credentials, no query (tokens travel there), no fragment. */
function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Says in words why a request to an HTTP upstream never got an answer, from the socket error `fetch` reports
 * under its bare `fetch failed` (anywhere in the `cause` chain): connection refused, host not resolved, TLS
 * certificate not accepted, connection reset, timed out, unreachable — with the URL (origin and path only; no
 * credentials or query). Undefined when the error carries no such code (an HTTP status, a protocol error).
 *
 * @param err - what the SDK transport rejected with
 * @param url - the upstream's URL
 * @returns the reason in words, or undefined
 */
export function describeNetworkFailure(err: unknown, url: URL): string | undefined {
  const code = socketErrorCode(err);
  if (code === undefined) return undefined;
  const at = shownUrl(url);
  const host = url.hostname;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused at ${at}: nothing listens on ${url.host}; is the server running, and is the port right?`;
    case 'ENOTFOUND':
      return `could not resolve host "${host}" (${at}): check the host name in the URL`;
    case 'EAI_AGAIN':
      return `could not resolve host "${host}" (${at}): the DNS lookup failed temporarily; check the network and DNS`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `connection reset by ${at}: the server closed the connection before answering`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connection to ${at} timed out: check the host, the port and any firewall in between`;
    case 'EHOSTUNREACH':
      return `host unreachable: ${at}; check the network route to ${host}`;
    case 'ENETUNREACH':
      return `network unreachable: ${at}; check the network connection`;
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER')
    return `TLS handshake with ${at} failed (${code}): does the server speak HTTPS there, or should the URL say http://?`;
  if (TLS_CODE.test(code))
    return `TLS certificate of ${at} was not accepted (${code}): use a certificate trusted for "${host}", or add its CA with NODE_EXTRA_CA_CERTS`;
  return undefined;
}
