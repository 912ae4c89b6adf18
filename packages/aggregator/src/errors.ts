/**
 * The one place where local errors become JSON-RPC errors (STYLE.md §5). Codes the aggregator throws:
 *
 * - `MCPP_AGG_UNKNOWN_NAME`: an agent named an unknown tool, prompt or resource → -32602 naming it.
 * - `MCPP_AGG_UPSTREAM_UNAVAILABLE`: the upstream is not available → -32000 `upstream_unavailable`.
 *
 * It also maps the codes of the packages below it: `MCPP_SUP_UNAVAILABLE` → -32000, `MCPP_SUP_UNKNOWN_UPSTREAM`
 * and `MCPP_NS_*` → -32602. Upstream `ProtocolError`s (JSON-RPC error responses) pass through unchanged.
 */
import { McpPipeError, isMcpPipeError } from '@mcppipe/errors';
import { RATE_LIMITED_CODE } from '@mcppipe/policy';
import type { Phase } from '@mcppipe/upstream-state';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';

/** JSON-RPC code of `upstream_unavailable` (DESIGN.md "Beyond the seeds", A12). */
export const UPSTREAM_UNAVAILABLE_CODE = -32000;
/** JSON-RPC code used when an upstream request timed out. */
export const REQUEST_TIMEOUT_CODE = -32001;

/** What kind of name an agent sent, for `MCPP_AGG_UNKNOWN_NAME`. */
export type NameKind = 'tool' | 'prompt' | 'resource' | 'resource template' | 'upstream';

/** `data` of an `upstream_unavailable` error. */
export interface UpstreamUnavailableData {
  upstream: string;
  /** Always one of the four lifecycle phases agents are told about (never `available`). */
  phase: Phase;
  retryAfterMs?: number;
}

/** What the upstream's state machine says now: its phase and, while it retries, when it retries next. */
export interface UpstreamState {
  phase: Phase;
  retryAfterMs?: number | undefined;
}

const PHASES: ReadonlySet<string> = new Set<Phase>(['connecting', 'available', 'recovering', 'failed']);

/**
 * The phase an unavailable upstream reports: the one its error carries, else what its state machine says now;
 * an upstream whose connection went away while the machine still says `available` (or says nothing) is
 * `recovering`, the phase it is about to enter.
 */
function unavailablePhase(carried: unknown, now: UpstreamState | undefined): Phase {
  if (typeof carried === 'string' && PHASES.has(carried) && carried !== 'available') return carried as Phase;
  const phase = now?.phase;
  return phase === undefined || phase === 'available' ? 'recovering' : phase;
}

/**
 * `MCPP_AGG_UNKNOWN_NAME` for a name the agent sent.
 *
 * @param kind - what the name should have named
 * @param name - the name exactly as the agent sent it
 * @param reason - optional detail (e.g. the unknown upstream)
 * @returns the error to throw
 */
export function unknownNameError(kind: NameKind, name: string, reason?: string): McpPipeError {
  const detail = reason === undefined ? '' : ` (${reason})`;
  return new McpPipeError('MCPP_AGG_UNKNOWN_NAME', `Unknown ${kind}: ${JSON.stringify(name)}${detail}`, {
    data: { kind, name },
  });
}

/**
 * `MCPP_AGG_UPSTREAM_UNAVAILABLE` for an upstream that is not available.
 *
 * @param data - the upstream, its phase and, when known, when to retry
 * @returns the error to throw
 */
export function upstreamUnavailableError(data: UpstreamUnavailableData): McpPipeError {
  let hint = '';
  if (data.phase === 'failed') hint = '; recovery gave up, a new session (initialize) retries it';
  else if (data.retryAfterMs === 0) hint = '; reconnecting now';
  else if (data.retryAfterMs !== undefined) hint = `; retry in ${Math.ceil(data.retryAfterMs / 1000)} s`;
  return new McpPipeError(
    'MCPP_AGG_UPSTREAM_UNAVAILABLE',
    `upstream_unavailable: upstream ${JSON.stringify(data.upstream)} is ${data.phase}${hint}`,
    { data },
  );
}

function unavailable(
  data: Record<string, unknown>,
  fallbackUpstream: string | undefined,
  now: UpstreamState | undefined,
): ProtocolError {
  const upstream = typeof data['upstream'] === 'string' ? data['upstream'] : (fallbackUpstream ?? 'unknown');
  const phase = unavailablePhase(data['phase'], now);
  const wire: UpstreamUnavailableData = { upstream, phase };
  const carried = data['retryAfterMs'];
  const retryAfterMs =
    typeof carried === 'number' ? carried : phase === 'failed' ? undefined : now?.retryAfterMs;
  if (retryAfterMs !== undefined) wire.retryAfterMs = retryAfterMs;
  const { message } = upstreamUnavailableError(wire);
  return new ProtocolError(UPSTREAM_UNAVAILABLE_CODE, message, wire);
}

/**
 * Maps anything thrown while serving a request to the JSON-RPC error the agent receives. The mapping lives
 * here only:
 *
 * | thrown | JSON-RPC error |
 * | --- | --- |
 * | an upstream `ProtocolError` (its JSON-RPC error response) | unchanged: same code, message and data |
 * | `MCPP_SUP_UNAVAILABLE`, `MCPP_AGG_UPSTREAM_UNAVAILABLE` | -32000 `upstream_unavailable: upstream "x" is recovering; retry in 4 s`, `data: { upstream, phase, retryAfterMs }` |
 * | `MCPP_AGG_UNKNOWN_NAME`, `MCPP_SUP_UNKNOWN_UPSTREAM`, `MCPP_NS_*` | -32602 naming the name |
 * | `MCPP_SUP_BAD_REQUEST` (the agent's request could not be serialized) | -32602, no internal text |
 * | `MCPP_POLICY_RATE_LIMITED` (a policy limit refused a call, P2) | -31429 naming the tool and the wait, `data: { retryAfterMs, limit }` |
 * | an upstream request timeout | -32001 naming the upstream |
 * | `MCPP_SUP_STOPPED`, the upstream connection closed mid-request | -32000 `upstream_unavailable`, the phase the state machine says (`recovering` while it still says `available`) |
 * | anything else | -32603 with the error's message |
 *
 * Every `upstream_unavailable` has one message format, `upstream_unavailable: upstream "<name>" is <phase>` plus
 * a retry hint, and `data.phase` is always `connecting`, `recovering` or `failed`.
 *
 * @param err - anything caught
 * @param upstream - the upstream the request was routed to, when known (named in messages)
 * @param now - the upstream's state now (its registry snapshot), for failures that carry no phase themselves
 * @returns a `ProtocolError` to throw from a request handler
 *
 * @example In a custom request handler
 * ```ts
 * try { return await registry.request('search', req); }
 * catch (err) { throw toJsonRpcError(err, 'search'); }
 * ```
 */
export function toJsonRpcError(err: unknown, upstream?: string, now?: UpstreamState): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (isMcpPipeError(err)) {
    const data = (err.data ?? {}) as Record<string, unknown>;
    switch (err.code) {
      case 'MCPP_SUP_UNAVAILABLE':
      case 'MCPP_AGG_UPSTREAM_UNAVAILABLE':
      case 'MCPP_SUP_STOPPED':
        return unavailable(data, upstream, now);
      case 'MCPP_AGG_UNKNOWN_NAME':
      case 'MCPP_SUP_UNKNOWN_UPSTREAM':
      case 'MCPP_NS_NOT_NAMESPACED':
      case 'MCPP_NS_NOT_WRAPPED':
      case 'MCPP_NS_INVALID_NAME':
      case 'MCPP_SUP_BAD_REQUEST':
        return new ProtocolError(ProtocolErrorCode.InvalidParams, err.message, err.data);
      case 'MCPP_POLICY_RATE_LIMITED':
        return new ProtocolError(RATE_LIMITED_CODE, err.message, err.data);
      default:
        if (err.code.startsWith('MCPP_NS_'))
          return new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
        return new ProtocolError(ProtocolErrorCode.InternalError, err.message);
    }
  }
  const where = upstream === undefined ? '' : `upstream ${JSON.stringify(upstream)}: `;
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) {
      return new ProtocolError(
        REQUEST_TIMEOUT_CODE,
        `${where}request timed out`,
        upstream ? { upstream } : undefined,
      );
    }
    if (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected) {
      return unavailable({}, upstream, now);
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProtocolError(ProtocolErrorCode.InternalError, `${where}${message}`);
}
