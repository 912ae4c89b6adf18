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
 * result). The hub owns the timeout: it restarts on every progress notification and, when it fires, aborts
 * the upstream request (the SDK sends `notifications/cancelled`). Progress goes to the agent under the agent's
 * own token; the last progress notification is flushed before the result. The agent's cancellation and the
 * hub's close abort the upstream request too.
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
  const onAbort = () => controller.abort(ctx.mcpReq.signal.reason ?? hubSignal.reason);
  const signals = [ctx.mcpReq.signal, hubSignal];
  for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  if (signals.some((s) => s.aborted)) onAbort();

  const token = ctx.mcpReq._meta?.progressToken;
  let flushed: Promise<void> = Promise.resolve();
  const onprogress = (progress: Record<string, unknown>) => {
    if (controller.signal.aborted) return;
    arm();
    if (token === undefined) return;
    const notification = { method: 'notifications/progress', params: { ...progress, progressToken: token } };
    flushed = flushed
      .then(() => ctx.mcpReq.notify(notification))
      .catch((err: unknown) =>
        logger.debug({ upstream: server, err: errorMessage(err) }, 'hub: progress not delivered'),
      );
  };

  arm();
  try {
    const result = await registry.request(
      server,
      { method: 'tools/call', params: { name: tool, arguments: args } },
      {
        signal: controller.signal,
        onprogress,
        timeoutMs: timeoutMs + SUPERVISOR_TIMEOUT_GRACE_MS,
        resetTimeoutOnProgress: true,
      },
    );
    await flushed;
    return result as CallToolResult;
  } catch (err) {
    if (timedOut) return timeoutError(server, tool, timeoutMs);
    if (hubSignal.aborted) return closedError();
    return mapFailure(registry, { server, tool }, err);
  } finally {
    clearTimeout(timer);
    for (const s of signals) s.removeEventListener('abort', onAbort);
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
