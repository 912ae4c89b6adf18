import type { Http2Session } from 'node:http2';

/**
 * Drains h2 sessions (a stopping CLI, T6): a GOAWAY on each, so the peer opens no new stream on it (the relay
 * answers new public requests `503` `tunnel_offline`), while the streams already open run to their end.
 *
 * @param sessions - the sessions to drain (closed or destroyed ones are skipped)
 * @param graceMs - the longest wait, in ms
 * @returns once every session has closed (its last stream ended), or after `graceMs`, whichever comes first
 */
export function drainSessions(sessions: Iterable<Http2Session>, graceMs: number): Promise<void> {
  const open = [...sessions].filter((s) => !s.closed && !s.destroyed);
  if (open.length === 0 || graceMs <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let left = open.length;
    const timer = setTimeout(resolve, graceMs);
    const closed = (): void => {
      if (--left > 0) return;
      clearTimeout(timer);
      resolve();
    };
    for (const s of open) {
      s.once('close', closed);
      s.close(); // GOAWAY (NO_ERROR, the last stream it took), then closes once its open streams have ended
    }
  });
}
