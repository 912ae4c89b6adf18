/**
 * The per-server proxy (DESIGN.md G4): a throwaway low-level MCP `Server` per request that forwards every
 * request verbatim to the supervisor's long-lived client for one upstream, advertising exactly the capabilities
 * (and `serverInfo`, `instructions`) the upstream declared in its handshake.
 *
 * Only `{ method, params }` cross to the upstream: the agent's headers and token never do. Forwarding is the
 * aggregate's ({@link forwardForAgent}): the agent's progress token is replaced by the SDK's own and progress
 * is re-emitted under the agent's token (the last one awaited before the result); the agent's abort aborts the
 * upstream request (`notifications/cancelled`); failures are mapped by `toJsonRpcError`.
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import { SHARED_MODERN_SERVER } from '@mcppipe/http';
import { prefixName } from '@mcppipe/namespace';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { Server } from '@modelcontextprotocol/server';
import type { Implementation, ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { toJsonRpcError } from './errors.js';
import { forwardForAgent } from './forward.js';
import type { ForwardTarget } from './forward.js';
import { governRequest, governResult } from './governed.js';
import type { VerbatimTarget } from './governed.js';
import type { PolicyGate } from './policyGate.js';

/** Options of {@link createProxyServer}. */
export interface ProxyServerOptions {
  /** The supervised upstreams. */
  registry: UpstreamRegistry;
  /** Which upstream this server forwards to. */
  name: string;
  /** Upstream request timeout in ms, restarted by each progress notification. */
  timeoutMs: number;
  /**
   * Tool policies and rate limits (P3), the same gate as the aggregate endpoint's: rules still name tools
   * `<server>__<tool>`. Lists are filtered; a denied tool or prompt is refused with -32602 `Unknown tool: "<tool>"`
   * before any upstream traffic, a denied upstream's resources as an unknown resource. Default: none.
   */
  policy?: PolicyGate;
}

type Obj = Record<string, unknown>;

/** Forwards one request through `gate`: names checked (and a call's token taken) before, lists filtered after. */
async function forwardGoverned(
  route: { gate: PolicyGate; target: ForwardTarget & VerbatimTarget },
  request: { method: string; params: Obj | undefined },
  ctx: ServerContext,
): Promise<Obj> {
  const { gate, target } = route;
  const governed = { ...target, gate, caller: gate.callerOf(ctx) };
  try {
    governRequest(governed, request);
  } catch (err) {
    throw toJsonRpcError(err, target.upstream);
  }
  return governResult(governed, request.method, await forwardForAgent(request, ctx, target));
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
 * Builds the per-server proxy for one request (DESIGN.md G4).
 *
 * @param options - the registry, the upstream name and the timeout
 * @returns a fresh, unconnected `Server`
 * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM` when the registry has no such upstream
 *
 * @example One host per upstream, stateless
 * ```ts
 * const host = createMcpHttpHost(() => createProxyServer({ registry, name: 'search', timeoutMs: 300_000 }), {
 *   stateless: true,
 * });
 * ```
 */
export function createProxyServer(options: ProxyServerOptions): Server {
  const { registry, name, timeoutMs } = options;
  const snapshot = registry.get(name);
  if (snapshot === undefined) {
    throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `No server named "${name}" is configured`);
  }
  const server = new ProxyServer(options, snapshot.serverInfo ?? { name, version: '0.0.0' }, {
    capabilities: (snapshot.capabilities ?? {}) as ServerCapabilities,
    ...(snapshot.instructions !== undefined && { instructions: snapshot.instructions }),
  });
  const gate = options.policy;
  const target = {
    registry,
    upstream: name,
    timeoutMs,
    prefix: gate === undefined ? '' : prefixName(name, ''),
  };
  server.fallbackRequestHandler = (request, ctx) => {
    const forward = { method: request.method, params: request.params as Obj | undefined };
    return (
      gate === undefined
        ? forwardForAgent(forward, ctx, target)
        : forwardGoverned({ gate, target }, forward, ctx)
    ) as never;
  };
  server.fallbackNotificationHandler = (notification) =>
    registry
      .notify(name, {
        method: notification.method,
        ...(notification.params !== undefined && { params: notification.params }),
      })
      .catch(() => {});
  return server;
}
