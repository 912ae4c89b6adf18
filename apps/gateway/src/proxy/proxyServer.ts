/**
 * The per-server proxy (DESIGN.md G4): a throwaway low-level MCP `Server` per HTTP request that forwards
 * every request verbatim to the supervisor's long-lived client for one upstream, advertising exactly the
 * capabilities (and `serverInfo`, `instructions`) the upstream declared in its handshake.
 *
 * Only `{ method, params }` cross to the upstream: the agent's headers and token never do. The agent's
 * progress token is replaced by the SDK's own upstream token and progress is re-emitted under the agent's
 * token (the last one awaited before the result, so it cannot arrive after it); the agent's abort
 * (cancellation or a closed connection) aborts the upstream request, which sends `notifications/cancelled`.
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type {
  Implementation,
  JSONRPCRequest,
  ServerCapabilities,
  ServerContext,
} from '@modelcontextprotocol/server';
import { SHARED_MODERN_SERVER } from '@mcppipe/http';
import { McpPipeError } from '@mcppipe/errors';

/** Options of {@link createProxyServer}. */
export interface ProxyServerOptions {
  /** The supervised upstreams. */
  registry: UpstreamRegistry;
  /** Which upstream this server forwards to. */
  name: string;
  /** Upstream request timeout in ms, restarted by each progress notification. */
  timeoutMs: number;
}

/** JSON-RPC code of `upstream_unavailable` (DESIGN.md "Errors"). */
export const UPSTREAM_UNAVAILABLE = -32000;

/**
 * Maps a failure of the upstream request to what the agent sees: JSON-RPC errors from the upstream pass
 * through unchanged; "not available" becomes -32000 `upstream_unavailable` with `{ upstream, phase, retryAfterMs }`.
 *
 * @param err - what `registry.request` rejected with
 * @param name - the upstream
 */
export function toAgentError(err: unknown, name: string): unknown {
  if (err instanceof ProtocolError) return err;
  if (
    isMcpPipeError(err, 'MCPP_SUP_UNAVAILABLE') ||
    isMcpPipeError(err, 'MCPP_SUP_UNKNOWN_UPSTREAM') ||
    isMcpPipeError(err, 'MCPP_SUP_STOPPED')
  ) {
    const data = (err.data ?? { upstream: name }) as Record<string, unknown>;
    return new ProtocolError(UPSTREAM_UNAVAILABLE, `upstream_unavailable: ${err.message}`, {
      upstream: name,
      ...data,
    });
  }
  return err;
}

function withoutProgressToken(params: JSONRPCRequest['params']): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const meta = params['_meta'] as Record<string, unknown> | undefined;
  if (meta === undefined || !('progressToken' in meta)) return params;
  const { progressToken: _dropped, ...rest } = meta;
  const copy: Record<string, unknown> = { ...params };
  if (Object.keys(rest).length > 0) copy['_meta'] = rest;
  else delete copy['_meta'];
  return copy;
}

async function forward(options: ProxyServerOptions, request: JSONRPCRequest, ctx: ServerContext) {
  const { registry, name, timeoutMs } = options;
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const upstreamAbort = new AbortController();
  const onAbort = () => upstreamAbort.abort(ctx.mcpReq.signal.reason);
  if (ctx.mcpReq.signal.aborted) onAbort();
  else ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
  let lastProgress: Promise<void> = Promise.resolve();
  try {
    const result = await registry.request(
      name,
      {
        method: request.method,
        ...(request.params !== undefined && { params: withoutProgressToken(request.params) }),
      },
      {
        signal: upstreamAbort.signal,
        timeoutMs,
        resetTimeoutOnProgress: true,
        ...(progressToken !== undefined && {
          onprogress: (progress) => {
            lastProgress = ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
              .catch(() => {});
          },
        }),
      },
    );
    await lastProgress;
    return result;
  } catch (err) {
    throw toAgentError(err, name);
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The proxy's `Server`. It may serve many 2026-07-28 requests as one long-lived instance (`@mcppipe/http`'s direct
 * path, `SHARED_MODERN_SERVER`): every request is forwarded on its own context, and the `serverInfo` stamped into
 * each 2026-07-28 result is read from the upstream's live snapshot (the upstream may have restarted as another
 * version since the instance was built). Capabilities and instructions only answer `server/discover` and
 * `initialize`, which are always served on a fresh instance.
 */
class ProxyServer extends Server {
  readonly [SHARED_MODERN_SERVER] = true;

  constructor(
    private readonly options: ProxyServerOptions,
    info: Implementation,
    init: { capabilities: ServerCapabilities; instructions?: string },
  ) {
    super(info, init);
  }

  protected override _outboundServerInfo(): Implementation | undefined {
    return this.options.registry.get(this.options.name)?.serverInfo ?? super._outboundServerInfo();
  }
}

/**
 * Builds the proxy server for one request.
 *
 * @param options - the registry, the upstream name and the timeout
 * @returns a fresh, unconnected `Server`
 * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM` when the registry has no such upstream
 */
export function createProxyServer(options: ProxyServerOptions): Server {
  const snapshot = options.registry.get(options.name);
  if (snapshot === undefined) {
    throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `No server named "${options.name}" is configured`);
  }
  const server = new ProxyServer(options, snapshot.serverInfo ?? { name: options.name, version: '0.0.0' }, {
    capabilities: (snapshot.capabilities ?? {}) as ServerCapabilities,
    ...(snapshot.instructions !== undefined && { instructions: snapshot.instructions }),
  });
  server.fallbackRequestHandler = (request, ctx) => forward(options, request, ctx) as never;
  server.fallbackNotificationHandler = (notification) =>
    options.registry
      .notify(options.name, {
        method: notification.method,
        ...(notification.params !== undefined && { params: notification.params }),
      })
      .catch(() => {});
  return server;
}
