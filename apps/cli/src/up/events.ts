/**
 * The event scope of `mcppipe up` behind a tunnel (DESIGN.md E1, E2, E4): an `EventHub` fed by the supervisor's
 * transitions, tool pins on every tool list (the aggregator reads the upstreams through `pinnedRegistry`), a
 * re-list on each `tools/list_changed` so a change is noticed without an agent listing, and the
 * `LocalEventScope` the relay reads over the tunnel (`serveEventScope` in `@mcppipe/events`).
 *
 * @module
 */
import { pinnedRegistry, type PinnedRegistry } from '@mcppipe/aggregator';
import {
  EventHub,
  ToolPins,
  stateChangedData,
  type LocalEventScope,
  type ToolSnapshot,
} from '@mcppipe/events';
import { prefixName, splitName } from '@mcppipe/namespace';
import type { UpstreamNotificationEvent, UpstreamRegistry } from '@mcppipe/supervisor';
import type { StateChangedEvent } from '@mcppipe/upstream-state';
import type { Logger } from 'pino';

/** The CLI's events: the registry to serve through and the scope the relay reads. */
export interface CliEvents {
  /** The upstreams with tool lists pinned (hand it to the aggregator). */
  registry: PinnedRegistry;
  scope: LocalEventScope;
  close(): void;
}

/**
 * Wires the events of `mcppipe up`.
 *
 * @param supervisor - the supervisor
 * @param options - `hold` (`--hold-changed-tools`), `single` (one upstream served verbatim: the snapshot is empty
 *   and exposed names are bare), the logger
 * @returns the events
 */
export async function createCliEvents(
  supervisor: UpstreamRegistry,
  options: { hold: boolean; single: boolean; logger: Logger },
): Promise<CliEvents> {
  const hub = new EventHub();
  const pins = await ToolPins.open({
    hold: options.hold,
    onChange: (data) => hub.publish('tool.changed', data),
    logger: options.logger,
  });
  const registry = pinnedRegistry(supervisor, pins);
  const refresh = (upstream: string) =>
    registry.request(upstream, { method: 'tools/list', params: {} }).then(
      () => undefined,
      () => undefined,
    );
  const onState = (event: StateChangedEvent) => {
    hub.publish('upstream.state_changed', stateChangedData(event));
    if (event.to === 'available') void refresh(event.upstream);
  };
  const onNotification = (event: UpstreamNotificationEvent) => {
    if (event.method === 'notifications/tools/list_changed') void refresh(event.upstream);
  };
  supervisor.on('state_changed', onState);
  supervisor.on('notification', onNotification);
  const exposed = (upstream: string, name: string) => (options.single ? name : prefixName(upstream, name));
  const split = (name: string): { upstream: string; name: string } | undefined => {
    if (options.single) {
      const only = supervisor.list()[0];
      return only && { upstream: only.name, name };
    }
    try {
      return splitName(name);
    } catch {
      return undefined;
    }
  };
  const scope: LocalEventScope = {
    hub,
    upstreams: () =>
      options.single
        ? []
        : supervisor.list().map((s) => {
            const tools = pins.list(s.name);
            return {
              name: s.name,
              phase: s.phase,
              lastChange: new Date(s.lastChangeAt).toISOString(),
              lastError: s.lastError ?? null,
              tools: tools.length,
              changedTools: tools.filter((t) => t.changed).length,
            };
          }),
    async tools() {
      const names = supervisor
        .list()
        .filter((s) => s.phase === 'available')
        .map((s) => s.name);
      await Promise.all(names.map(refresh));
      const tools: ToolSnapshot[] = pins.upstreams().flatMap((upstream) =>
        pins.list(upstream).map((t) => ({
          upstream,
          name: exposed(upstream, t.name),
          hash: t.hash,
          changed: t.changed,
          pinnedAt: t.pinnedAt,
        })),
      );
      return { hold: pins.hold, tools };
    },
    async reconnect(name) {
      if (supervisor.get(name) === undefined) return undefined;
      await supervisor.reinitialize(name);
      return { name, phase: supervisor.get(name)!.phase };
    },
    accept(name) {
      const parts = split(name);
      if (!parts || !pins.list(parts.upstream).some((t) => t.name === parts.name)) return undefined;
      const t = pins.accept(parts.upstream, parts.name);
      registry.toolsChanged(parts.upstream); // agents re-list and see the tool again
      return { upstream: parts.upstream, name, hash: t.hash, changed: false, pinnedAt: t.pinnedAt };
    },
    hold(on) {
      if (pins.hold === on) return { hold: on };
      pins.hold = on;
      options.logger.info(
        { hold: on },
        `changed tools are ${on ? 'held back' : 'listed'} (the relay's setting)`,
      );
      // agents re-list where the lists change: the upstreams with a changed tool
      for (const upstream of pins.upstreams())
        if (pins.list(upstream).some((t) => t.changed)) registry.toolsChanged(upstream);
      return { hold: on };
    },
  };
  return {
    registry,
    scope,
    close() {
      supervisor.off('state_changed', onState);
      supervisor.off('notification', onNotification);
    },
  };
}
