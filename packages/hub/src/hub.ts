import { McpPipeError } from '@mcppipe/errors';
import type { UpstreamNotificationEvent, UpstreamSnapshot } from '@mcppipe/supervisor';
import type { StateChangedEvent } from '@mcppipe/upstream-state';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { version } from '../package.json';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_INSTRUCTIONS,
  DEFAULT_LIST_TIMEOUT_MS,
  DEFAULT_SERVER_NAME,
} from './defaults.js';
import { closedError, toErrorResult } from './errors.js';
import type { HubError } from './errors.js';
import { createHandlers } from './handlers.js';
import { isMetaToolName, metaTools } from './metaTools.js';
import { ToolCache } from './toolCache.js';
import type { Hub, HubLogger, HubOptions, HubServerContext } from './types.js';

const silent: HubLogger = { debug() {}, info() {}, warn() {}, error() {} };

function checkTimeout(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || value > 2_147_483_647) {
    throw new TypeError(
      `createHub: options.${name} must be a positive number of milliseconds (got ${value})`,
    );
  }
  return value;
}

/**
 * Creates the hub: four meta-tools (`list_servers`, `list_tools`, `get_tool`, `call_tool`) over the upstreams
 * of one registry, with a per-server tool cache refreshed on `notifications/tools/list_changed` and on
 * reconnect. Upstreams for which `isVisible` is false (default: `"hub": false`) are invisible.
 *
 * @param options - the registry and optional timeouts, visibility rule, logger and server identity
 * @returns the hub; call `createServer()` for each MCP server instance to serve
 * @throws TypeError when an option is invalid (checked here, not at first use)
 *
 * @example Serving the hub to 2026-07-28 agents
 * ```ts
 * import { createHub } from '@mcppipe/hub';
 * import { createMcpHandler } from '@modelcontextprotocol/server';
 *
 * const hub = createHub({ registry: supervisor });
 * const handler = createMcpHandler(hub.createServer, { legacy: 'reject' });
 * // 2025-era sessions: await hub.createServer({ era: 'legacy' }).connect(sessionTransport);
 * ```
 */
export function createHub(options: HubOptions): Hub {
  const registry = options?.registry;
  if (!registry || typeof registry.get !== 'function' || typeof registry.request !== 'function') {
    throw new TypeError('createHub: options.registry must be an UpstreamRegistry');
  }
  const logger = options.logger ?? silent;
  const callTimeoutMs = checkTimeout('callTimeoutMs', options.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS);
  const listTimeoutMs = checkTimeout('listTimeoutMs', options.listTimeoutMs, DEFAULT_LIST_TIMEOUT_MS);
  const isVisible = options.isVisible ?? ((s: UpstreamSnapshot) => s.spec.hub !== false);
  const serverInfo = options.serverInfo ?? { name: DEFAULT_SERVER_NAME, version };
  const instructions = options.instructions ?? DEFAULT_INSTRUCTIONS;

  const cache = new ToolCache({ registry, logger, listTimeoutMs });
  const closing = new AbortController();
  const handlers = createHandlers({
    registry,
    logger,
    cache,
    isVisible,
    callTimeoutMs,
    hubSignal: closing.signal,
    policy: options.policy,
  });

  const refreshIfVisible = (name: string) => {
    const snapshot = registry.get(name);
    if (snapshot && snapshot.phase === 'available' && isVisible(snapshot)) cache.refresh(name);
  };
  const onNotification = (event: UpstreamNotificationEvent) => {
    if (event.method !== 'notifications/tools/list_changed') return;
    cache.invalidate(event.upstream);
    refreshIfVisible(event.upstream);
  };
  const onStateChanged = (event: StateChangedEvent) => {
    if (event.to === 'available') refreshIfVisible(event.upstream);
  };
  const onLayoutChanged = (event: { added: string[]; removed: string[]; replaced: string[] }) => {
    for (const name of [...event.removed, ...event.replaced]) cache.drop(name);
    for (const name of [...event.added, ...event.replaced]) refreshIfVisible(name);
  };
  registry.on('notification', onNotification);
  registry.on('state_changed', onStateChanged);
  registry.on('layout_changed', onLayoutChanged);
  for (const snapshot of registry.list()) refreshIfVisible(snapshot.name);

  const callMetaTool = async (
    params: { name: string; arguments?: Record<string, unknown> },
    ctx: ServerContext,
  ): Promise<CallToolResult> => {
    if (!isMetaToolName(params.name)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${params.name} (this hub has list_servers, list_tools, get_tool and call_tool)`,
      );
    }
    if (closing.signal.aborted) return toErrorResult(closedError());
    try {
      return await handlers[params.name](params.arguments, ctx);
    } catch (err) {
      if (err instanceof McpPipeError) return toErrorResult(err as HubError);
      throw err;
    }
  };

  const createServer = (_ctx?: HubServerContext): Server => {
    if (closing.signal.aborted) throw closedError();
    const server = new Server(serverInfo, { capabilities: { tools: {} }, instructions });
    server.setRequestHandler('tools/list', () => ({ tools: [...metaTools] }));
    server.setRequestHandler('tools/call', (request, ctx) => callMetaTool(request.params, ctx));
    return server;
  };

  const close = async (): Promise<void> => {
    if (closing.signal.aborted) return;
    closing.abort(closedError());
    registry.off('notification', onNotification);
    registry.off('state_changed', onStateChanged);
    registry.off('layout_changed', onLayoutChanged);
    cache.clear();
  };

  return { createServer, close, [Symbol.asyncDispose]: close };
}
