import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.js';
import { Lifecycle } from './lifecycle.js';
import type { LifecyclePolicy } from './policy.js';
import { aggregatorPolicy, gatewayPolicy } from './policy.js';
import type { StateChangedEvent } from './types.js';

/** A lifecycle whose every connection attempt fails at once ("exits at once forever"). */
function crashLoop(policy: LifecyclePolicy, clock: VirtualClock) {
  const events: StateChangedEvent[] = [];
  let attempts = 0;
  let disconnects = 0;
  const lc: Lifecycle = new Lifecycle({
    upstream: 'flaky',
    policy,
    clock,
    scheduler: clock,
    seed: 3,
    onConnect: () => {
      attempts++;
      lc.connectFailed('exited with code 1');
    },
    onDisconnect: () => disconnects++,
    onStateChanged: (e) => events.push(e),
  });
  return { lc, events, attempts: () => attempts, disconnects: () => disconnects };
}

describe('Lifecycle in virtual time', () => {
  it('an upstream that exits at once ends in failed under the aggregator policy, with no timer left', () => {
    const clock = new VirtualClock(1_000_000);
    const { lc, events, attempts } = crashLoop(aggregatorPolicy({}, {}), clock);
    lc.start();
    clock.advance(10 * 60_000);
    expect(lc.phase).toBe('failed');
    expect(events.map((e) => `${e.from}→${e.to}`)).toEqual(['connecting→recovering', 'recovering→failed']);
    // 20 attempts come after ~7 min of backoff, so the 300 s downtime limit is what stops it
    expect(attempts()).toBeLessThan(20);
    expect(events[1]!.at - 1_000_000).toBeGreaterThanOrEqual(300_000);
    expect(events[1]!.at - 1_000_000).toBeLessThan(300_000 + 1);
    expect(clock.pending).toBe(0);
  });

  it('stops at MCPPIPE_UPSTREAM_MAX_ATTEMPTS when that comes first', () => {
    const clock = new VirtualClock();
    const { lc, events, attempts } = crashLoop(
      aggregatorPolicy({}, { MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '4' }),
      clock,
    );
    lc.start();
    clock.advance(60_000);
    expect(lc.phase).toBe('failed');
    expect(attempts()).toBe(4);
    expect(events.at(-1)).toMatchObject({ to: 'failed', attempt: 4, error: 'exited with code 1' });
  });

  it('keeps retrying under the gateway policy (a day of virtual time, backoff ≤ 5 min)', () => {
    const clock = new VirtualClock();
    const { lc, attempts, events } = crashLoop(gatewayPolicy(), clock);
    lc.start();
    clock.advance(24 * 3600_000);
    expect(lc.phase).toBe('recovering');
    expect(attempts()).toBeGreaterThan(24 * 12 - 5);
    expect(events).toHaveLength(1);
    expect(clock.pending).toBe(1);
  });

  it('reinitialize from failed reconnects; a success records downtime', () => {
    const clock = new VirtualClock();
    let fail = true;
    const events: StateChangedEvent[] = [];
    const lc: Lifecycle = new Lifecycle({
      upstream: 'a',
      policy: aggregatorPolicy({ maxAttempts: 2 }, {}),
      clock,
      scheduler: clock,
      onConnect: () => (fail ? lc.connectFailed('refused') : lc.connected()),
      onDisconnect: () => {},
      onStateChanged: (e) => events.push(e),
    });
    lc.start();
    clock.advance(10_000);
    expect(lc.phase).toBe('failed');
    fail = false;
    clock.advance(5_000);
    lc.reinitialize();
    expect(lc.phase).toBe('available');
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({ from: 'failed', to: 'connecting' }),
      expect.objectContaining({ from: 'connecting', to: 'available', downtimeMs: clock.now() }),
    ]);
  });

  it('trips on call failures and recovers by itself; the retry timer is visible as retryAfterMs', () => {
    const clock = new VirtualClock();
    let disconnects = 0;
    const lc: Lifecycle = new Lifecycle({
      upstream: 'a',
      policy: aggregatorPolicy({ jitterRatio: 0 }, {}),
      clock,
      scheduler: clock,
      onConnect: () => lc.connected(),
      onDisconnect: () => disconnects++,
    });
    lc.start();
    lc.callFailed('timeout');
    lc.callFailed('timeout');
    lc.callSucceeded();
    lc.callFailed('timeout');
    lc.callFailed('timeout');
    expect(lc.phase).toBe('available');
    lc.callFailed('timeout');
    expect(lc.phase).toBe('recovering');
    expect(disconnects).toBe(1);
    expect(lc.retryAfterMs()).toBe(500);
    clock.advance(500);
    expect(lc.phase).toBe('available');
    expect(lc.retryAfterMs()).toBeUndefined();
  });

  it('dispose cancels the retry timer and ignores later inputs', () => {
    const clock = new VirtualClock();
    const { lc, attempts } = crashLoop(gatewayPolicy(), clock);
    lc.start();
    expect(clock.pending).toBe(1);
    lc.dispose();
    expect(clock.pending).toBe(0);
    clock.advance(3600_000);
    expect(attempts()).toBe(1);
  });
});
