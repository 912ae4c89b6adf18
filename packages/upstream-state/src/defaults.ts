/**
 * Default numbers of the two lifecycle policies (DESIGN.md "One lifecycle, two policies").
 * Every duration is in milliseconds.
 */

/** Consecutive failed calls that trip `available` → `recovering` (A12). */
export const DEFAULT_TRIP_THRESHOLD = 3;
/** The window the tripping failures must fall within (A12). */
export const DEFAULT_TRIP_WINDOW_MS = 30_000;
/** Backoff growth factor per retry (A12, G8). */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** Jitter as a fraction of the delay: ±20 %. */
export const DEFAULT_JITTER_RATIO = 0.2;
/** Liveness probe interval (G8). */
export const DEFAULT_PROBE_INTERVAL_MS = 60_000;
/** Liveness probe timeout (G8). */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

/** Aggregator policy: first retry delay. */
export const AGGREGATOR_INITIAL_BACKOFF_MS = 500;
/** Aggregator policy: backoff cap (A12). */
export const AGGREGATOR_MAX_BACKOFF_MS = 30_000;
/** Aggregator policy: give up after this many attempts (A12, `MCPPIPE_UPSTREAM_MAX_ATTEMPTS`). */
export const AGGREGATOR_MAX_ATTEMPTS = 20;
/** Aggregator policy: give up after this much downtime (A12, `MCPPIPE_UPSTREAM_FAILED_AFTER_SECS` × 1000). */
export const AGGREGATOR_FAILED_AFTER_MS = 300_000;
/** Aggregator policy: the backoff level resets after this much uptime (one trip window). */
export const AGGREGATOR_BACKOFF_RESET_AFTER_MS = 30_000;

/** Gateway policy: first retry delay (G8). */
export const GATEWAY_INITIAL_BACKOFF_MS = 1_000;
/** Gateway policy: backoff cap (G8). */
export const GATEWAY_MAX_BACKOFF_MS = 300_000;
/** Gateway policy: the backoff level resets after this much uptime (G8). */
export const GATEWAY_BACKOFF_RESET_AFTER_MS = 300_000;

/** Environment variable: the aggregator policy's attempt limit. */
export const ENV_MAX_ATTEMPTS = 'MCPPIPE_UPSTREAM_MAX_ATTEMPTS';
/** Environment variable: the aggregator policy's downtime limit, in seconds. */
export const ENV_FAILED_AFTER_SECS = 'MCPPIPE_UPSTREAM_FAILED_AFTER_SECS';
