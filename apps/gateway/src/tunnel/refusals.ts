/**
 * Requests the relay refuses before they reach a tunnel (issue 19 Live: "who called what and with what result"):
 * 401 (no valid credentials for the tunnel's auth mode), 403 (outside its IP allowlist), 429 (the per-IP rate
 * limit) and 503 (`tunnel_offline`, or the shared rate-limit store away)
 * are recorded in the tunnel's exchange ring, so the owner sees in Live why an agent cannot get in. Nothing of the
 * request is kept but its size (an unauthenticated body is not the owner's data); the caller is `refused (<client
 * address>)`; the response is a plain-text line saying why. At most {@link REFUSAL_RATE} per tunnel (burst
 * {@link REFUSAL_BURST}): a flood of refused requests cannot push the owner's own exchanges out of the ring.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { ExchangeCapture } from '@mcppipe/capture';
import { createLimiter } from '@mcppipe/policy';

/** Refusals recorded per tunnel: the refill rate (`@mcppipe/policy` rate syntax). */
export const REFUSAL_RATE = '30/min';
/** Refusals recorded per tunnel at once. */
export const REFUSAL_BURST = 10;

/** Why a request was refused, and what the owner reads in the Inspector. */
const REASONS: Record<number, string> = {
  429: 'refused at the relay: too many requests from this client address (the per-IP rate limit)',
  401: 'refused at the relay: no valid credentials for the tunnel auth mode',
  403: "refused at the relay: the client address is not in the tunnel's IP allowlist",
  503: 'refused at the relay: the tunnel is offline (tunnel_offline)',
};

/** One refused request: the request, the client address (after `TRUSTED_PROXIES`), the status sent, epoch ms. */
export interface Refusal {
  req: IncomingMessage;
  ip: string;
  status: number;
  startedAt: number;
}

/**
 * Builds the recorder.
 *
 * @param exchanges - the relay's capture
 * @param now - epoch ms clock (default `Date.now`)
 * @returns `record(id, refusal)`: records one refusal of tunnel `id` (a no-op past the rate)
 */
export function createRefusalRecorder(exchanges: ExchangeCapture, now: () => number = Date.now) {
  const limiter = createLimiter({
    limits: [{ scope: 'tool', rate: REFUSAL_RATE, burst: REFUSAL_BURST }],
    clock: { now },
  });
  return (id: string, refusal: Refusal): void => {
    const { req, ip, status, startedAt } = refusal;
    if (!limiter.take('relay', id).ok) return;
    const length = Number(req.headers['content-length']);
    const why = Buffer.from(REASONS[status] ?? `refused at the relay: HTTP ${status}`);
    exchanges.record(id, {
      caller: `refused (${ip})`,
      zeroKnowledge: false,
      startedAt,
      durationMs: Math.max(0, now() - startedAt),
      httpStatus: status,
      contentType: 'text/plain',
      sessionId: undefined,
      replayHeaders: {},
      request: { bytes: Number.isFinite(length) ? length : 0, truncated: true, chunks: [] }, // not kept, not replayable
      response: { bytes: why.length, truncated: false, chunks: [why] },
    });
  };
}
