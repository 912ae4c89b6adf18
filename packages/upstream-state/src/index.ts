/**
 * `@mcppipe/upstream-state`: The per-upstream lifecycle state machine: trip rule, backoff, give-up limits, transition events. Every export here is public API.
 *
 * @module
 */
export {};
