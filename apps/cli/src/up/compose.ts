import { createAggregator, createPolicyGate, listenStreamSubscriptions } from '@mcppipe/aggregator';
import type { Aggregator, PolicyGate } from '@mcppipe/aggregator';
import type { Layout } from '@mcppipe/config';
import { createMcpHttpHost } from '@mcppipe/http';
import type { McpHttpHost } from '@mcppipe/http';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { Logger } from 'pino';
import type { UpArgs } from '../commands/up.js';
import type { Metrics } from '../metrics.js';
import { upPolicy } from './policy.js';
import { trace, tracing } from './trace.js';
import { version } from './util.js';

/** The MCP side of `mcppipe up`, not yet listening. */
export interface Composed {
  aggregator: Aggregator;
  /** Path → MCP host: `/mcp`, and `/hub` with `--hub`. */
  endpoints: Record<string, McpHttpHost>;
  closeHub: (() => Promise<void>) | undefined;
}

/** What {@link composeServing} builds on. */
export interface ComposeOptions {
  args: UpArgs;
  layout: Layout;
  /** The supervisor (or any registry of upstreams). */
  upstreams: UpstreamRegistry;
  metrics: Metrics | undefined;
  logger: Logger;
}

/** With startup tracing on, the registry traces each upstream request and its answer. */
function traced(registry: UpstreamRegistry): UpstreamRegistry {
  if (!tracing) return registry;
  return new Proxy(registry, {
    get(target, key) {
      if (key === 'request')
        return async (...a: Parameters<UpstreamRegistry['request']>) => {
          trace('upstream request', { upstream: a[0], method: a[1].method });
          const r = await target.request(...a);
          trace('upstream answered', { upstream: a[0], method: a[1].method });
          return r;
        };
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * The aggregator of `mcppipe up` over the (metered, traced) upstreams: `aggregate` mode, or `single` (verbatim) for
 * one upstream. Both front doors serve it: HTTP ({@link composeServing}) and stdio (`serveStdio` in stdio.ts).
 *
 * @param options - the layout, upstreams, metrics, logger and the `--deny-tool`/`--allow-tool` globs
 * @returns the aggregator, the registry it reads and its policy gate (the hub reads and uses the same)
 */
export function composeAggregator(
  options: Omit<ComposeOptions, 'args'> & {
    tools: { denyTool: readonly string[]; allowTool: readonly string[] };
  },
): {
  aggregator: Aggregator;
  registry: UpstreamRegistry;
  policy: PolicyGate | undefined;
} {
  const { layout, metrics, logger } = options;
  const registry = traced(metrics ? metrics.meter(options.upstreams) : options.upstreams);
  const compiled = upPolicy(layout.policies, options.tools);
  // One gate for /mcp and /hub (P3): shared rules and buckets.
  const policy =
    compiled &&
    createPolicyGate({
      policy: compiled,
      logger: logger.child({ component: 'policy' }),
      ...(metrics && { onRefusal: metrics.policyRefused }),
    });
  const aggregator = createAggregator({
    registry,
    mode: layout.mode,
    ...(policy && { policy }),
    serverInfo: { name: 'mcppipe', version },
    logger: logger.child({ component: 'aggregator' }),
  });
  return { aggregator, registry, policy: policy || undefined };
}

/**
 * Composes the aggregator over the (metered, traced) upstreams and the MCP hosts that serve it: `/mcp` (its
 * `list_changed` and `resources/updated` notifications forwarded to every session) and, with `--hub`, `/hub`.
 *
 * @param options - the flags, layout, upstreams, metrics and logger
 * @returns the aggregator, the endpoints by path and how to close the hub
 */
export async function composeServing(options: ComposeOptions): Promise<Composed> {
  const { args, logger } = options;
  const { aggregator, registry, policy } = composeAggregator({ ...options, tools: args });
  const hostOptions = {
    stateless: args.stateless,
    maxSessions: args.maxSessions,
    sessionIdleTimeoutMs: args.sessionIdleSecs * 1000,
    maxRequestBodySize: args.bodyLimit,
    logger: logger.child({ component: 'http' }),
  };
  // --stateless: a 2025-era request has no session, so its server must not promise change notifications
  const createServer: typeof aggregator.createServer = args.stateless
    ? (ctx) => aggregator.createServer({ ...ctx, sessionless: true })
    : aggregator.createServer;
  const mcp = createMcpHttpHost(createServer, {
    ...hostOptions,
    onResourceSubscriptions: listenStreamSubscriptions(aggregator),
  });
  aggregator.on('list_changed', (kind) => {
    if (kind === 'tools') mcp.notify.toolsChanged();
    else if (kind === 'prompts') mcp.notify.promptsChanged();
    else mcp.notify.resourcesChanged();
  });
  aggregator.on('resource_updated', (uri) => mcp.notify.resourceUpdated(uri));
  const endpoints: Record<string, McpHttpHost> = { '/mcp': mcp };
  let closeHub: (() => Promise<void>) | undefined;
  if (args.hub) {
    const { createHub } = await import('@mcppipe/hub');
    const hub = createHub({
      registry,
      logger: logger.child({ component: 'hub' }),
      ...(policy && { policy }),
    });
    endpoints['/hub'] = createMcpHttpHost(() => hub.createServer(), hostOptions);
    closeHub = () => hub.close();
  }
  return { aggregator, endpoints, closeHub };
}
