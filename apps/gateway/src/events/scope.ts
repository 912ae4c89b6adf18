/**
 * The gateway's own event scope (E1–E4) for its configured servers: an `EventHub` fed by the supervisor's
 * transitions, webhooks fed by the hub, tool pins on every tool list (through {@link pinnedRegistry}), and a
 * `tools/list` refresh on each `tools/list_changed` so a change is noticed without an agent listing.
 *
 * @module
 */
import { join } from 'node:path';
import {
  EventHub,
  JsonFileEventsStore,
  MemoryEventsStore,
  ToolPins,
  WebhookDeliverer,
  stateChangedData,
  type EventType,
  type EventsStore,
} from '@mcppipe/events';
import type { UpstreamNotificationEvent, UpstreamRegistry } from '@mcppipe/supervisor';
import type { StateChangedEvent } from '@mcppipe/upstream-state';
import type { Logger } from '../types.js';
import { pinnedRegistry, type PinnedRegistry } from '@mcppipe/aggregator';

/** Options of {@link createGatewayEvents}. */
export interface GatewayEventsOptions {
  /** Where webhooks and pins are kept. Default memory. */
  store?: EventsStore;
  /** `MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1`. Default false. */
  allowPrivate?: boolean;
  /** `hold-changed-tools`. Default false. */
  holdChangedTools?: boolean;
  /** Webhook retry waits (tests). Default the package's (about an hour in all). */
  retryDelaysMs?: readonly number[];
  logger?: Logger;
}

/** The gateway's events: what the `/api` routes read. */
export interface GatewayEvents {
  hub: EventHub;
  webhooks: WebhookDeliverer;
  pins: ToolPins;
  /** The registry to hand to the aggregator, the hub and the app (tool lists pinned). */
  registry: PinnedRegistry;
  /** Reads an upstream's tools now (through the pins); errors are swallowed (the upstream may be down). */
  refreshTools(upstream: string): Promise<void>;
  close(): void;
}

/**
 * Wires the events of the gateway's configured servers.
 *
 * @param supervisor - the supervisor
 * @param options - see {@link GatewayEventsOptions}
 */
export async function createGatewayEvents(
  supervisor: UpstreamRegistry,
  options: GatewayEventsOptions = {},
): Promise<GatewayEvents> {
  const store = options.store ?? new MemoryEventsStore();
  const hub = new EventHub();
  const webhooks = await WebhookDeliverer.open({
    store,
    eventTypes: GATEWAY_EVENT_TYPES,
    allowPrivate: options.allowPrivate ?? false,
    ...(options.retryDelaysMs && { retryDelaysMs: options.retryDelaysMs }),
    ...(options.logger && { logger: options.logger }),
  });
  const pins = await ToolPins.open({
    store,
    hold: options.holdChangedTools ?? false,
    onChange: (data) => hub.publish('tool.changed', data),
    ...(options.logger && { logger: options.logger }),
  });
  const registry = pinnedRegistry(supervisor, pins);
  const unsubscribe = hub.subscribe((event) => webhooks.dispatch(event));
  const refreshTools = async (upstream: string) => {
    await registry.request(upstream, { method: 'tools/list', params: {} }).catch(() => {});
  };
  const onState = (event: StateChangedEvent) => {
    hub.publish('upstream.state_changed', stateChangedData(event));
    if (event.to === 'available') void refreshTools(event.upstream);
  };
  const onNotification = (event: UpstreamNotificationEvent) => {
    if (event.method === 'notifications/tools/list_changed') void refreshTools(event.upstream);
  };
  supervisor.on('state_changed', onState);
  supervisor.on('notification', onNotification);
  return {
    hub,
    webhooks,
    pins,
    registry,
    refreshTools,
    close() {
      supervisor.off('state_changed', onState);
      supervisor.off('notification', onNotification);
      unsubscribe();
      webhooks.close();
    },
  };
}

/** What the gateway's own scope publishes: its servers' state changes and tool changes (tunnel events are the relay's). */
const GATEWAY_EVENT_TYPES: readonly EventType[] = ['upstream.state_changed', 'tool.changed'];

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

/**
 * The gateway's events settings from its environment: `MCPPIPE_WEBHOOKS_ALLOW_PRIVATE`,
 * `MCPPIPE_HOLD_CHANGED_TOOLS` (`hold-changed-tools`); webhooks and pins are kept in `<dataDir>/events/`.
 *
 * @param env - the environment
 * @param dataDir - the gateway's data directory
 * @param logger - the logger
 */
export function eventsSettings(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  logger: Logger,
): GatewayEventsOptions {
  // test-only: short webhook retry waits, e.g. `200,200` (the e2e suite; never documented for operators)
  const raw = env['MCPPIPE_TEST_WEBHOOK_RETRY_MS'];
  const retryDelays = raw ? raw.split(',').map((v) => Math.max(0, Number(v) || 0)) : undefined;
  return {
    store: new JsonFileEventsStore(join(dataDir, 'events')),
    allowPrivate: truthy(env['MCPPIPE_WEBHOOKS_ALLOW_PRIVATE']),
    holdChangedTools: truthy(env['MCPPIPE_HOLD_CHANGED_TOOLS']),
    ...(retryDelays && { retryDelaysMs: retryDelays }),
    logger,
  };
}
