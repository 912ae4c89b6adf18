import type { StateChangedEvent } from '@mcppipe/upstream-state';
import type { SupervisorEvents, UpstreamNotificationEvent } from '@mcppipe/supervisor';
import type { Server } from '@modelcontextprotocol/server';
import { upstreamRequestHandler } from './bridge.js';
import {
  mergeCapabilities,
  mergeInstructions,
  singleCapabilities,
  withoutChangeNotifications,
} from './capabilities.js';
import { Core } from './core.js';
import * as d from './defaults.js';
import { diagnosticsOf } from './diagnostics.js';
import { onUpstreamNotification, unwrapForSubscription } from './route.js';
import { AggregatorServer } from './server.js';
import { onSingleNotification } from './single.js';
import type {
  Aggregator,
  AggregatorEvents,
  AggregatorOptions,
  ChangedKind,
  CreateServerContext,
} from './types.js';

const ALL_KINDS: readonly ChangedKind[] = ['tools', 'prompts', 'resources'];

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  // 43 = the longest upstream name (32) + "__" + 1 + the 8-character hash of a shortened name.
  const min = name === 'maxNameLength' ? 43 : 1;
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new TypeError(
      `createAggregator: options.${name} must be an integer of at least ${min}, got ${String(value)}`,
    );
  return value;
}

/**
 * Creates an aggregator: a namespaced MCP server over the upstreams of a registry (DESIGN.md A1–A5),
 * or, in `single` mode, a verbatim forwarder for one upstream. Serve it by handing
 * {@link Aggregator.createServer} to a transport: one `Server` per 2025-era session, one per 2026-07-28
 * request (`createMcpHandler(aggregator.createServer, { legacy: 'reject' })`).
 *
 * @param options - see {@link AggregatorOptions}
 * @returns the aggregator; close it with `close()` or `await using`
 * @throws TypeError for invalid options (checked here, not at first use), or `single` mode over a
 *   registry that does not hold exactly one upstream
 *
 * @example Serving a supervisor's upstreams over stdio
 * ```ts
 * import { createAggregator } from '@mcppipe/aggregator';
 * import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
 *
 * const aggregator = createAggregator({ registry: supervisor });
 * await aggregator.createServer().connect(new StdioServerTransport());
 * ```
 */
export function createAggregator(options: AggregatorOptions): Aggregator {
  const { registry } = options;
  if (typeof registry?.request !== 'function')
    throw new TypeError('createAggregator: options.registry must be an UpstreamRegistry');
  const mode = options.mode ?? 'aggregate';
  if (mode !== 'aggregate' && mode !== 'single')
    throw new TypeError(
      `createAggregator: options.mode must be 'aggregate' or 'single', got ${String(mode)}`,
    );
  if (mode === 'single' && registry.list().length !== 1) {
    throw new TypeError(
      `createAggregator: single mode needs exactly one upstream, the registry has ${registry.list().length}`,
    );
  }
  const serverInfo = options.serverInfo ?? d.DEFAULT_SERVER_INFO;
  const core = new Core({
    registry,
    mode,
    logger: options.logger ?? d.silentLogger,
    maxNameLength: positiveInt('maxNameLength', options.maxNameLength, d.DEFAULT_MAX_NAME_LENGTH),
    pageSize: positiveInt('pageSize', options.pageSize, d.DEFAULT_PAGE_SIZE),
    maxPagesPerUpstream: positiveInt(
      'maxPagesPerUpstream',
      options.maxPagesPerUpstream,
      d.DEFAULT_MAX_PAGES_PER_UPSTREAM,
    ),
    listTimeoutMs: positiveInt('listTimeoutMs', options.listTimeoutMs, d.DEFAULT_LIST_TIMEOUT_MS),
    callTimeoutMs: positiveInt('callTimeoutMs', options.callTimeoutMs, d.DEFAULT_CALL_TIMEOUT_MS),
    inputRequiredTtlMs: positiveInt(
      'inputRequiredTtlMs',
      options.inputRequiredTtlMs,
      d.DEFAULT_INPUT_REQUIRED_TTL_MS,
    ),
    policy: options.policy,
  });

  // Generations seen, to renew subscriptions after a reconnect; upstreams already up are warmed now.
  const generations = new Map<string, number>();
  for (const snap of registry.list()) {
    if (snap.phase !== 'available') continue;
    generations.set(snap.name, snap.generation);
    if (mode === 'aggregate') core.lists.warm(snap.name);
  }
  const onNotification = (event: UpstreamNotificationEvent) => {
    if (mode === 'single') onSingleNotification(core, event);
    else onUpstreamNotification(core, event);
  };
  const onStateChanged = (event: StateChangedEvent) => {
    core.lists.touch();
    if (event.to !== 'available') return;
    const generation = registry.get(event.upstream)?.generation;
    const previous = generations.get(event.upstream);
    if (generation !== undefined) generations.set(event.upstream, generation);
    if (previous !== undefined && previous !== generation) core.subscriptions.resubscribe(event.upstream);
    if (mode === 'aggregate') core.lists.warm(event.upstream);
    for (const kind of ALL_KINDS) core.listChanged(kind);
  };
  const onLayoutChanged = (event: SupervisorEvents['layout_changed'][0]) => {
    core.lists.touch();
    for (const name of [...event.removed, ...event.replaced]) {
      core.lists.forget(name);
      generations.delete(name);
    }
    for (const kind of ALL_KINDS) core.listChanged(kind);
  };
  registry.on('notification', onNotification);
  registry.on('state_changed', onStateChanged);
  registry.on('layout_changed', onLayoutChanged);
  registry.setUpstreamRequestHandler(upstreamRequestHandler(core.inflight));

  const capabilities = () =>
    mode === 'single' ? singleCapabilities(registry.list()[0]) : mergeCapabilities(registry.list());
  const instructions = () =>
    mode === 'single' ? registry.list()[0]?.instructions : mergeInstructions(registry.list());

  const createServer = (ctx?: CreateServerContext): Server => {
    if (core.closed) throw new Error('createAggregator: the aggregator is closed');
    const era = ctx?.era === 'modern' ? 'modern' : 'legacy';
    const text = instructions();
    const server = new AggregatorServer(core, era, {
      info: { ...serverInfo },
      capabilities:
        era === 'legacy' && ctx?.sessionless === true
          ? withoutChangeNotifications(capabilities())
          : capabilities(),
      ...(text ? { instructions: text } : {}),
      agentHandshake: ctx?.internal !== true,
    });
    if (era === 'legacy') core.sessions.add(server);
    return server;
  };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      registry.off('notification', onNotification);
      registry.off('state_changed', onStateChanged);
      registry.off('layout_changed', onLayoutChanged);
      registry.setUpstreamRequestHandler(undefined);
      await core.close();
    })();
    return closing;
  };

  const aggregator: Aggregator = {
    createServer,
    on<E extends keyof AggregatorEvents>(event: E, listener: (...args: AggregatorEvents[E]) => void) {
      core.emitter.on(event, listener);
      return aggregator;
    },
    off<E extends keyof AggregatorEvents>(event: E, listener: (...args: AggregatorEvents[E]) => void) {
      core.emitter.off(event, listener);
      return aggregator;
    },
    capabilities,
    diagnostics: () => diagnosticsOf(core),
    async subscribeResource(uri) {
      const holder = {};
      const target = unwrapForSubscription(core, uri);
      await core.subscriptions.subscribe(holder, uri, target);
      return () => core.subscriptions.unsubscribe(holder, target);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return aggregator;
}
