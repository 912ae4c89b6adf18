/**
 * The one hook where tool lists are built (E4): a registry wrapper that passes every upstream `tools/list` page
 * through `ToolPins.filter` (pinning, `tool.changed`, holding changed tools back) and refuses calls of held tools.
 * The aggregator, the hub and the per-server proxies all read upstreams through it, so each sees the same lists.
 * The gateway (its configured servers) and `mcppipe up` (behind a tunnel) both wrap their supervisor with it.
 *
 * @module
 */
import { EventEmitter } from 'node:events';
import type { SupervisorEvents, UpstreamRegistry } from '@mcppipe/supervisor';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * What {@link pinnedRegistry} needs of the pins: `@mcppipe/events`' `ToolPins` has this shape (the aggregator does
 * not import the events package; the dependency rule keeps it below).
 */
export interface ToolPinFilter {
  /** Hide changed tools (`hold-changed-tools`). */
  readonly hold: boolean;
  /** @returns the upstream's pinned tools and whether each changed */
  list(upstream: string): readonly { name: string; changed: boolean }[];
  /** Pins the listed tools (raising `tool.changed`) and returns the visible ones. */
  filter<T extends { name: string }>(upstream: string, tools: readonly T[]): readonly T[];
}

/** A registry whose tool lists go through the pins, plus a way to make agents re-list. */
export interface PinnedRegistry extends UpstreamRegistry {
  /** Tells every consumer (aggregator, hub, proxies) that `upstream`'s tools changed (after an accept). */
  toolsChanged(upstream: string): void;
}

/**
 * Wraps a registry so its tool lists are pinned and filtered.
 *
 * @param inner - the supervisor
 * @param pins - the scope's pins (`ToolPins`)
 * @returns the wrapped registry
 */
export function pinnedRegistry(inner: UpstreamRegistry, pins: ToolPinFilter): PinnedRegistry {
  const own = new EventEmitter();
  return {
    list: () => inner.list(),
    get: (name) => inner.get(name),
    notify: (name, n) => inner.notify(name, n),
    reinitialize: (name) => inner.reinitialize(name),
    setUpstreamRequestHandler: (h) => inner.setUpstreamRequestHandler(h),
    async request(name, request, options) {
      if (request.method === 'tools/call' && pins.hold) {
        const tool = String(request.params?.['name'] ?? '');
        if (pins.list(name).some((t) => t.name === tool && t.changed)) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `tool ${JSON.stringify(tool)} of ${JSON.stringify(name)} changed since it was pinned and is held until the owner accepts it`,
          );
        }
      }
      const result = await inner.request(name, request, options);
      if (request.method !== 'tools/list' || !Array.isArray(result['tools'])) return result;
      const tools = result['tools'] as { name: string }[];
      const visible = pins.filter(name, tools);
      return visible === tools ? result : { ...result, tools: [...visible] };
    },
    on<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void) {
      inner.on(event, listener);
      own.on(event, listener as (...args: unknown[]) => void);
      return this;
    },
    off<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void) {
      inner.off(event, listener);
      own.off(event, listener as (...args: unknown[]) => void);
      return this;
    },
    toolsChanged(upstream) {
      own.emit('notification', { upstream, method: 'notifications/tools/list_changed' });
    },
  };
}
