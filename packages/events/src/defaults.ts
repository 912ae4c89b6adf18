/** Events an {@link EventHub} keeps for `Last-Event-ID` replay. */
export const DEFAULT_REPLAY_BUFFER = 1000;
/** Interval of the SSE `: ping` comment, so proxies keep the stream open (E2). */
export const DEFAULT_SSE_PING_MS = 15_000;
/** Bytes an SSE client may fall behind before its stream is closed (it reconnects with `Last-Event-ID`). */
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Attempts per webhook delivery, the first included (E3). */
export const DEFAULT_WEBHOOK_ATTEMPTS = 6;
/**
 * Waits before attempts 2…6: growing, about an hour in all (5 s, 30 s, 2 min, 10 min, 45 min).
 */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  5_000, 30_000, 120_000, 600_000, 2_700_000,
]);
/** Timeout of one delivery attempt (connect to end of response headers), in ms. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Deliveries kept in each subscription's log. */
export const DEFAULT_DELIVERY_LOG_SIZE = 100;
/** Events waiting per subscription; beyond it the oldest waiting one is dropped (and logged as failed). */
export const DEFAULT_WEBHOOK_QUEUE_SIZE = 1000;
/** Subscriptions per scope. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 20;
