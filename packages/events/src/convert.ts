import type { StateChangedEvent } from '@mcppipe/upstream-state';
import type { UpstreamStateChangedData } from './types.js';

/**
 * The `upstream.state_changed` payload of a lifecycle transition (a supervisor's `state_changed` event, E1).
 *
 * @param event - the transition
 * @param tunnel - the tunnel's id, or null for the gateway's own servers
 * @returns the payload, absent fields as `null`
 */
export function stateChangedData(
  event: StateChangedEvent,
  tunnel: string | null = null,
): UpstreamStateChangedData {
  return {
    tunnel,
    upstream: event.upstream,
    from: event.from,
    to: event.to,
    at: event.at,
    error: event.error ?? null,
    downtimeMs: event.downtimeMs ?? null,
  };
}
