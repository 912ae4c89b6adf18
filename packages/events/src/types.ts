import type { Phase } from '@mcppipe/upstream-state';

/** `upstream.state_changed` (E1): one lifecycle transition of one upstream. */
export interface UpstreamStateChangedData {
  /** The tunnel's id, or `null` for the gateway's own configured servers. */
  tunnel: string | null;
  upstream: string;
  from: Phase;
  to: Phase;
  /** Epoch milliseconds of the transition. */
  at: number;
  /** The error that caused the transition, as a message; `null` when none. */
  error: string | null;
  /** Milliseconds the upstream was not available, on a return to `available`; `null` otherwise. */
  downtimeMs: number | null;
}

/** `tunnel.connected` / `tunnel.disconnected` (E1). */
export interface TunnelEventData {
  tunnel: string;
  /** Epoch milliseconds. */
  at: number;
  /** Why a tunnel disconnected, when known; `null` otherwise. */
  reason: string | null;
}

/** `tool.changed` (E4): a tool's definition hash differs from its pin. */
export interface ToolChangedData {
  /** The tunnel's id, or `null` for the gateway's own configured servers. */
  tunnel: string | null;
  upstream: string;
  /** The tool's name as the upstream lists it (not prefixed). */
  tool: string;
  /** The pinned hash (`sha256:<hex>`). */
  before: string;
  /** The hash now seen. */
  after: string;
}

/** The payload (`data`) of each event type. */
export interface EventDataMap {
  'upstream.state_changed': UpstreamStateChangedData;
  'tunnel.connected': TunnelEventData;
  'tunnel.disconnected': TunnelEventData;
  'tool.changed': ToolChangedData;
}

/** Every event type. */
export type EventType = keyof EventDataMap;

/** Every event type, in documentation order. */
export const EVENT_TYPES: readonly EventType[] = Object.freeze([
  'upstream.state_changed',
  'tunnel.connected',
  'tunnel.disconnected',
  'tool.changed',
]);

/**
 * One event (E1), shaped like a Standard Webhooks payload: `{ id, type, timestamp, data }`. The same JSON is the
 * SSE `data:` line, the webhook body and an entry of the replay buffer.
 */
export type McpPipeEvent<T extends EventType = EventType> = {
  [K in T]: {
    /** Unique id (`evt_…`); the SSE `id:` and the webhook's `webhook-id`. */
    id: string;
    type: K;
    /** ISO 8601 time the event was published. */
    timestamp: string;
    data: EventDataMap[K];
  };
}[T];

/** A pino-compatible logger: `logger.warn({ upstream }, 'message')`. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
