import { forwardForAgent } from '@mcppipe/aggregator';
import { isMcpPipeError } from '@mcppipe/errors';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { Phase } from '@mcppipe/upstream-state';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { SUPERVISOR_TIMEOUT_GRACE_MS } from './defaults.js';
import { closedError, timeoutError, unavailableError, upstreamError } from './errors.js';
import type { HubError } from './errors.js';
import { errorMessage } from './toolCache.js';
import type { HubLogger } from './types.js';

/** What {@link forwardCall} needs. */
export interface ForwardCallInput {
  registry: UpstreamRegistry;
  logger: HubLogger;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** Idle timeout in ms, restarted by every progress notification. */
  timeoutMs: number;
  /** The agent's request context: its abort signal, progress token and notify. */
  ctx: ServerContext;
  /** Aborted when the hub closes. */
  hubSignal: AbortSignal;
}

/**
 * Forwards one `tools/call` to an upstream and returns its result unchanged (an `isError` result stays a
 * result), through the aggregator's one forwarding path (`forwardForAgent`: progress under the agent's own
 * token, the last one flushed before the result; the agent's cancellation aborts the upstream request). The hub
 * owns the timeout: it restarts on every progress notification (progress is always asked of the upstream) and,
 * when it fires, aborts the upstream request (the SDK sends `notifications/cancelled`). The hub's close aborts
 * the upstream request too.
 *
 * @returns the upstream's result, or a hub error to answer as an `isError` result
 */
export async function forwardCall(input: ForwardCallInput): Promise<CallToolResult | HubError> {
  const { registry, server, tool, args, timeoutMs, ctx, hubSignal, logger } = input;
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`hub call_tool timeout (${timeoutMs} ms)`));
    }, timeoutMs);
  };
  const onHubClose = () => controller.abort(hubSignal.reason);
  if (hubSignal.aborted) onHubClose();
  else hubSignal.addEventListener('abort', onHubClose, { once: true });

  arm();
  try {
    const result = await forwardForAgent(
      { method: 'tools/call', params: { name: tool, arguments: args } },
      ctx,
      {
        registry,
        upstream: server,
        timeoutMs: timeoutMs + SUPERVISOR_TIMEOUT_GRACE_MS,
        signal: controller.signal,
        onProgress: arm,
        onProgressDropped: (err) =>
          logger.debug({ upstream: server, err: errorMessage(err) }, 'hub: progress not delivered'),
        mapErrors: false,
      },
    );
    return result as CallToolResult;
  } catch (err) {
    if (timedOut) return timeoutError(server, tool, timeoutMs);
    if (hubSignal.aborted) return closedError();
    return mapFailure(registry, { server, tool }, err);
  } finally {
    clearTimeout(timer);
    hubSignal.removeEventListener('abort', onHubClose);
  }
}

/**
 * Maps a rejected upstream request to a hub error: the supervisor's fail-fast `MCPP_SUP_UNAVAILABLE` becomes
 * `MCPP_HUB_UNAVAILABLE`; a JSON-RPC error (numeric `code`) or a broken connection becomes
 * `MCPP_HUB_UPSTREAM_ERROR` naming the server's phase now.
 *
 * @param registry - to read the server's phase after the failure
 * @param target - the upstream name, and the tool called (absent for `tools/list`)
 * @param err - what the request rejected with
 */
export function mapFailure(
  registry: UpstreamRegistry,
  target: { server: string; tool?: string },
  err: unknown,
): HubError {
  const { server, tool } = target;
  const phase: Phase | undefined = registry.get(server)?.phase;
  if (isMcpPipeError(err, 'MCPP_SUP_UNAVAILABLE')) {
    const data = (err.data ?? {}) as { phase?: Phase; retryAfterMs?: number };
    return unavailableError(server, data.phase ?? phase ?? 'recovering', data.retryAfterMs);
  }
  const what = tool === undefined ? 'tools/list' : `the call of ${JSON.stringify(tool)}`;
  const e = err as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e?.code === 'number') {
    const message = typeof e.message === 'string' ? e.message : String(err);
    return upstreamError(server, what, { code: e.code, message, data: e.data, phase });
  }
  return upstreamError(server, what, { message: errorMessage(err), phase });
}
