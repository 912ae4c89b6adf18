import { VirtualClock } from '@mcppipe/upstream-state';
import { describe, expect, it } from 'vitest';
import type { TunnelStatus } from './client.js';
import { connectTunnel } from './client.js';
import { backoffPolicy, reconnectDelay } from './backoff.js';

describe('reconnect backoff (T6)', () => {
  it('defaults to 1, 2, 4, 8, 16, 30, 30 s without jitter at random 0.5', () => {
    const policy = backoffPolicy();
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(policy, n, 0.5))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });

  it('jitter stays within ±20 % and never exceeds the 30 s cap', () => {
    const policy = backoffPolicy();
    const base = [1000, 2000, 4000, 8000, 16000, 30000, 30000];
    base.forEach((b, n) => {
      expect(reconnectDelay(policy, n, 0)).toBe(b * 0.8);
      for (const random of [0.1, 0.25, 0.5, 0.75, 0.9, 0.999999]) {
        const delay = reconnectDelay(policy, n, random);
        expect(delay).toBeGreaterThanOrEqual(b * 0.8);
        expect(delay).toBeLessThanOrEqual(Math.min(30000, b * 1.2));
      }
    });
    expect(reconnectDelay(policy, 3, 0.999999)).toBe(9600);
  });

  it('rejects a bad backoff with MCPP_TUNNEL_INVALID_OPTIONS naming the field', () => {
    expect(() => backoffPolicy({ maxMs: 10, initialMs: 100 })).toThrow(
      expect.objectContaining({
        code: 'MCPP_TUNNEL_INVALID_OPTIONS',
        message: 'backoff.maxMs: must be a number ≥ backoff.initialMs, got 10',
      }),
    );
  });

  it('a client that cannot reach its relay waits 1, 2, 4, 8, 16, 30 s between attempts (virtual time)', async () => {
    const clock = new VirtualClock(0);
    const statuses: TunnelStatus[] = [];
    const tunnel = connectTunnel({
      relayUrl: 'http://127.0.0.1:1/tunnel/connect', // nothing listens on port 1: refused at once
      apiKey: 'k',
      subdomain: 'laptop',
      handler: () => {},
      random: () => 0.5,
      scheduler: clock,
      onStatus: (s) => statuses.push(s),
    });
    const delays = (): number[] =>
      statuses.flatMap((s) => (s.status === 'reconnecting' ? [s.retryInMs] : []));
    for (let i = 1; i <= 6; i++) {
      await expect.poll(() => delays().length, { timeout: 5_000 }).toBe(i);
      clock.runNext();
    }
    await tunnel.close();
    expect(delays()).toEqual([1000, 2000, 4000, 8000, 16000, 30000]);
    expect(tunnel.status).toEqual({ status: 'closed' });
  });
});
