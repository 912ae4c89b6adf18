/**
 * The four lifecycle phases of an upstream (seed 000 "Per-upstream lifecycle", DESIGN.md A12).
 * - `connecting`: the first handshake has not completed yet
 * - `available`: the last call succeeded; calls are routed to it
 * - `recovering`: a burst of errors tripped recovery; calls fail fast while a background loop retries
 * - `failed`: recovery gave up; only `reinitialize` (an agent's fresh handshake or an operator) leaves it
 */
export type Phase = 'connecting' | 'available' | 'recovering' | 'failed';

/**
 * One lifecycle transition, published as `upstream.state_changed` (DESIGN.md A14).
 * `at` is epoch milliseconds; `downtimeMs` is set on a return to `available` after recovering.
 */
export interface StateChangedEvent {
  upstream: string;
  from: Phase;
  to: Phase;
  /** Epoch milliseconds of the transition. */
  at: number;
  /** The recovery attempt number (1-based) when the transition is part of recovery. */
  attempt?: number;
  /** The error that caused the transition, as a message (never a secret). */
  error?: string;
  /** Milliseconds the upstream was not available, on a return to `available`. */
  downtimeMs?: number;
}
