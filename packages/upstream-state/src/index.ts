/**
 * `@mcppipe/upstream-state`: the per-upstream lifecycle state machine. Every export here is public API.
 *
 * @module
 */
export type { Phase, StateChangedEvent } from './types.js';
