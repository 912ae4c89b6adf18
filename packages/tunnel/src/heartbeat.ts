import type { Http2Session } from 'node:http2';
import type { WebSocket } from 'ws';
import { invalidOption } from './errors.js';

/** Options of {@link startHeartbeat}. */
export interface HeartbeatOptions {
  /** Send an h2 PING this often, in ms. */
  pingIntervalMs: number;
  /** Declare the peer dead after this much silence, in ms. */
  deadAfterMs: number;
  /** Called once when the peer has been silent for `deadAfterMs`. */
  onDead: () => void;
}

/**
 * Checks the two heartbeat durations.
 *
 * @param pingIntervalMs - the ping interval
 * @param deadAfterMs - the silence limit
 * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` naming the bad one
 */
export function validateHeartbeat(pingIntervalMs: number, deadAfterMs: number): void {
  if (!(Number.isFinite(pingIntervalMs) && pingIntervalMs > 0)) {
    throw invalidOption('pingIntervalMs', 'must be a positive number of ms', pingIntervalMs);
  }
  if (!(Number.isFinite(deadAfterMs) && deadAfterMs > pingIntervalMs)) {
    throw invalidOption('deadAfterMs', 'must be a number of ms greater than pingIntervalMs', deadAfterMs);
  }
}

/**
 * Keeps one tunnel connection honest (T3): an h2 PING every `pingIntervalMs`, and `onDead` once nothing at all
 * has arrived on the WebSocket for `deadAfterMs`. Any frame counts as life, so a busy tunnel needs no ping
 * answers; the per-frame cost is one `Date.now()`.
 *
 * @param ws - the tunnel's WebSocket
 * @param session - the h2 session running over it (pinged)
 * @param options - durations and the dead callback
 * @returns a function that stops the heartbeat
 */
export function startHeartbeat(ws: WebSocket, session: Http2Session, options: HeartbeatOptions): () => void {
  let lastSeen = Date.now();
  let lastPing = lastSeen;
  const seen = (): void => {
    lastSeen = Date.now();
  };
  ws.on('message', seen);
  ws.on('pong', seen);
  const tickMs = Math.max(1, Math.min(options.pingIntervalMs, Math.ceil(options.deadAfterMs / 4)));
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - lastSeen >= options.deadAfterMs) {
      stop();
      options.onDead();
      return;
    }
    if (now - lastPing >= options.pingIntervalMs && !session.destroyed && !session.closed) {
      lastPing = now;
      try {
        session.ping(() => {});
      } catch {
        // not connected yet or too many pings in flight: the silence check covers it
      }
    }
  }, tickMs);
  timer.unref();
  function stop(): void {
    clearInterval(timer);
    ws.off('message', seen);
    ws.off('pong', seen);
  }
  return stop;
}
