/**
 * `@mcppipe/events`: events, the upstreams API's building blocks and signed webhooks (DESIGN.md E1–E4). Every export
 * here is public API. Framework-free: hosts (the gateway, the relay, `mcppipe up`) wire it in a few lines per route.
 *
 * - {@link EventHub}: typed events with ids and timestamps, a bounded replay buffer, subscribers (E1).
 * - {@link openEventStream}: Server-Sent Events on a Node `ServerResponse`, `Last-Event-ID` resume, pings (E2).
 * - {@link openSseStream}: the one SSE writer under it (headers, pings, backpressure), also the relay's Live stream.
 * - {@link WebhookDeliverer}: subscriptions and Standard Webhooks deliveries with retries and a log (E3).
 * - {@link ToolPins}: tool definition pins, `tool.changed`, holding changed tools back (E4).
 * - {@link EventsStore}: the tiny persistence interface; {@link JsonFileEventsStore} is the file one.
 * - {@link serveEventScope} / {@link followEventScope}: a scope served by `mcppipe up` over its tunnel and followed
 *   by the relay (`/.mcppipe/*`); {@link TunnelScopes}: the relay's per-tunnel scopes (E1–E3).
 *
 * @module
 */
export type {
  EventDataMap,
  EventType,
  Logger,
  McpPipeEvent,
  ToolChangedData,
  TunnelEventData,
  UpstreamStateChangedData,
} from './types.js';
export { EVENT_TYPES } from './types.js';
export { EventHub, eventsAfter } from './hub.js';
export type { EventHubOptions, EventListener, SubscribeOptions } from './hub.js';
export { formatSseEvent, openEventStream, openSseStream } from './sse.js';
export type { EventStream, EventStreamOptions, SseStream, SseStreamOptions } from './sse.js';
export { WebhookDeliverer } from './webhooks.js';
export type { DeliveryRecord, WebhookDelivererOptions, WebhookSubscription } from './webhooks.js';
export { nodeTransport } from './transport.js';
export type { WebhookRequest, WebhookResponse, WebhookTransport } from './transport.js';
export { isPrivateAddress, resolvePublic } from './address.js';
export type { Resolver } from './address.js';
export { ToolPins, canonicalJson, toolHash } from './pins.js';
export type { PinnableTool, PinnedTool, ToolPinsOptions } from './pins.js';
export { JsonFileEventsStore, MemoryEventsStore } from './store.js';
export type { EventsStore } from './store.js';
export { stateChangedData } from './convert.js';
export {
  RELAY_REQUEST_HEADER,
  SCOPE_METADATA_KEY,
  SCOPE_PATH,
  callEventScope,
  followEventScope,
  serveEventScope,
} from './remote.js';
export type {
  FollowOptions,
  FollowedScope,
  LocalEventScope,
  ScopeRequest,
  ScopeRequester,
  ToolSnapshot,
  ToolsSnapshot,
  UpstreamSnapshot,
} from './remote.js';
export { TunnelScopes } from './tunnelScopes.js';
export type { TunnelConnection, TunnelScope, TunnelScopesOptions, TunnelSummary } from './tunnelScopes.js';
export type { EventsErrorCode } from './errors.js';
export {
  DEFAULT_DELIVERY_LOG_SIZE,
  DEFAULT_REPLAY_BUFFER,
  DEFAULT_SSE_PING_MS,
  DEFAULT_WEBHOOK_ATTEMPTS,
  DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
} from './defaults.js';
