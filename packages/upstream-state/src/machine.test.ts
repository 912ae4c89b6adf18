import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LifecycleEffect, LifecycleInput, LifecycleState, Transition } from './machine.js';
import { initialTransition, transition } from './machine.js';
import { aggregatorPolicy, gatewayPolicy } from './policy.js';

const noEnv = {};
const agg = aggregatorPolicy({ jitterRatio: 0 }, noEnv);

function emits(effects: readonly LifecycleEffect[]) {
  return effects.flatMap((e) => (e.type === 'emit' ? [e.event] : []));
}

function available(at = 0): LifecycleState {
  const t = initialTransition('up', at);
  return transition(t.state, { type: 'connected', at }, agg).state;
}

function step(state: LifecycleState, input: LifecycleInput, policy = agg): Transition {
  return transition(state, input, policy);
}

describe('initial connect', () => {
  it('starts in connecting with a connect effect and reaches available with one event and no downtime', () => {
    const init = initialTransition('up', 1000);
    expect(init.state.phase).toBe('connecting');
    expect(init.effects).toEqual([{ type: 'connect', attempt: 1 }]);
    const t = step(init.state, { type: 'connected', at: 1500 });
    expect(t.state.phase).toBe('available');
    expect(emits(t.effects)).toEqual([
      { upstream: 'up', from: 'connecting', to: 'available', at: 1500, attempt: 1 },
    ]);
  });

  it('a failed first attempt goes to recovering and schedules attempt 2', () => {
    const init = initialTransition('up', 0);
    const t = step(init.state, { type: 'connect_failed', at: 10, error: 'spawn ENOENT' });
    expect(t.state.phase).toBe('recovering');
    expect(emits(t.effects)).toEqual([
      { upstream: 'up', from: 'connecting', to: 'recovering', at: 10, attempt: 1, error: 'spawn ENOENT' },
    ]);
    expect(t.effects.at(-1)).toEqual({ type: 'schedule_retry', delayMs: 500, attempt: 2 });
  });

  it('a fatal failure (configuration error) goes straight to failed', () => {
    const init = initialTransition('up', 0);
    const t = step(init.state, { type: 'connect_failed', at: 5, error: '${TOKEN} is not set', fatal: true });
    expect(t.state.phase).toBe('failed');
    expect(emits(t.effects)).toHaveLength(1);
  });
});

describe('trip rule (A12)', () => {
  it('3 consecutive failures within 30 s trip available → recovering, closing the connection', () => {
    let s = available();
    s = step(s, { type: 'call_failed', at: 1000, error: 'timeout' }).state;
    s = step(s, { type: 'call_failed', at: 2000, error: 'timeout' }).state;
    expect(s.phase).toBe('available');
    const t = step(s, { type: 'call_failed', at: 3000, error: 'timeout' });
    expect(t.state.phase).toBe('recovering');
    expect(t.effects.map((e) => e.type)).toEqual(['disconnect', 'emit', 'schedule_retry']);
    expect(emits(t.effects)[0]).toMatchObject({ from: 'available', to: 'recovering', at: 3000 });
    expect(emits(t.effects)[0]?.error).toContain('timeout');
  });

  it('a success resets the count', () => {
    let s = available();
    for (const input of [
      { type: 'call_failed', at: 1, error: 'x' },
      { type: 'call_failed', at: 2, error: 'x' },
      { type: 'call_succeeded', at: 3 },
      { type: 'call_failed', at: 4, error: 'x' },
      { type: 'call_failed', at: 5, error: 'x' },
    ] as const) {
      s = step(s, input).state;
    }
    expect(s.phase).toBe('available');
  });

  it('failures spread over more than 30 s do not trip; the last three within 30 s do', () => {
    let s = available();
    for (const at of [0, 20_000, 40_000]) s = step(s, { type: 'call_failed', at, error: 'x' }).state;
    expect(s.phase).toBe('available');
    s = step(s, { type: 'call_failed', at: 45_000, error: 'x' }).state;
    expect(s.phase).toBe('recovering');
  });

  it('a success with no failure streak returns the same state object (hot path)', () => {
    const s = available();
    const t = step(s, { type: 'call_succeeded', at: 5 });
    expect(t.state).toBe(s);
    expect(t.effects).toHaveLength(0);
  });

  it('a process death while available recovers at once (death is a failure, not just the trip)', () => {
    const t = step(available(), { type: 'exited', at: 100, error: 'exited with code 1' });
    expect(t.state.phase).toBe('recovering');
    expect(t.effects[0]).toEqual({ type: 'disconnect' });
  });

  it('call inputs outside available are ignored', () => {
    const init = initialTransition('up', 0).state;
    expect(step(init, { type: 'call_failed', at: 1, error: 'x' }).state).toBe(init);
  });
});

describe('recovery', () => {
  function down(policy = agg): LifecycleState {
    return transition(available(), { type: 'exited', at: 0, error: 'boom' }, policy).state;
  }

  it('retries with doubling backoff capped at 30 s and records downtime on success', () => {
    let s = down();
    const delays: number[] = [];
    let now = 0;
    for (let i = 0; i < 9; i++) {
      expect(s.phase).toBe('recovering');
      if (s.phase !== 'recovering' || s.nextAttemptAt === undefined)
        throw new Error('expected a scheduled retry');
      delays.push(s.nextAttemptAt - now);
      now = s.nextAttemptAt;
      s = step(s, { type: 'retry_due', at: now }).state;
      s = step(s, { type: 'connect_failed', at: now, error: 'refused' }).state;
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    if (s.phase !== 'recovering' || s.nextAttemptAt === undefined)
      throw new Error('expected a scheduled retry');
    now = s.nextAttemptAt;
    s = step(s, { type: 'retry_due', at: now }).state;
    const t = step(s, { type: 'connected', at: now + 7 });
    expect(t.state.phase).toBe('available');
    expect(emits(t.effects)).toEqual([
      { upstream: 'up', from: 'recovering', to: 'available', at: now + 7, attempt: 10, downtimeMs: now + 7 },
    ]);
  });

  it('gives up at maxAttempts', () => {
    const policy = aggregatorPolicy({ jitterRatio: 0, maxAttempts: 3, initialBackoffMs: 10 }, noEnv);
    let s = down(policy);
    let at = 0;
    const events = [];
    for (let i = 0; i < 3; i++) {
      at += 1000;
      s = transition(s, { type: 'retry_due', at }, policy).state;
      const t = transition(s, { type: 'connect_failed', at, error: `refused ${i + 1}` }, policy);
      events.push(...emits(t.effects));
      s = t.state;
    }
    expect(s.phase).toBe('failed');
    expect(events).toEqual([
      { upstream: 'up', from: 'recovering', to: 'failed', at: 3000, attempt: 3, error: 'refused 3' },
    ]);
  });

  it('gives up at failedAfterMs when that comes first, clamping the last delay to the deadline', () => {
    const policy = aggregatorPolicy({ jitterRatio: 0, failedAfterMs: 2_200 }, noEnv);
    let s = down(policy);
    let last = 0;
    for (let i = 0; i < 10 && s.phase === 'recovering'; i++) {
      if (s.nextAttemptAt === undefined) throw new Error('expected a scheduled retry');
      last = s.nextAttemptAt;
      s = transition(s, { type: 'retry_due', at: last }, policy).state;
      s = transition(s, { type: 'connect_failed', at: last, error: 'refused' }, policy).state;
    }
    expect(s.phase).toBe('failed');
    expect(last).toBe(2_200);
    if (s.phase === 'failed') expect(s.attempt).toBe(3);
  });

  it('failed leaves only on reinitialize (or restart), which starts a fresh connect', () => {
    const policy = aggregatorPolicy({ maxAttempts: 1 }, noEnv);
    let s = down(policy);
    s = transition(s, { type: 'retry_due', at: 600 }, policy).state;
    s = transition(s, { type: 'connect_failed', at: 600, error: 'x' }, policy).state;
    expect(s.phase).toBe('failed');
    for (const type of ['retry_due', 'connected', 'call_succeeded'] as const) {
      expect(transition(s, { type, at: 700 }, policy).state).toBe(s);
    }
    const t = transition(s, { type: 'reinitialize', at: 800 }, policy);
    expect(t.state.phase).toBe('connecting');
    expect(t.effects).toEqual([
      { type: 'emit', event: { upstream: 'up', from: 'failed', to: 'connecting', at: 800 } },
      { type: 'connect', attempt: 1 },
    ]);
    const back = transition(t.state, { type: 'connected', at: 900 }, policy);
    expect(emits(back.effects)[0]?.downtimeMs).toBe(900);
  });

  it('reinitialize is a no-op outside failed', () => {
    for (const s of [initialTransition('up', 0).state, available(), down()]) {
      expect(step(s, { type: 'reinitialize', at: 1 }).state).toBe(s);
    }
  });

  it('restart closes and reconnects from available, with one event', () => {
    const t = step(available(), { type: 'restart', at: 50 });
    expect(t.state.phase).toBe('connecting');
    expect(t.effects.map((e) => e.type)).toEqual(['disconnect', 'emit', 'connect']);
  });

  it('restart while recovering cancels the timer', () => {
    const t = step(down(), { type: 'restart', at: 50 });
    expect(t.effects.map((e) => e.type)).toEqual(['cancel_retry', 'disconnect', 'emit', 'connect']);
  });
});

describe('gateway policy (G8)', () => {
  const gw = gatewayPolicy({ jitterRatio: 0 });

  it('never gives up and caps the backoff at 5 min', () => {
    let s = transition(available(), { type: 'exited', at: 0, error: 'x' }, gw).state;
    let maxDelay = 0;
    let now = 0;
    for (let i = 0; i < 500; i++) {
      if (s.phase !== 'recovering' || s.nextAttemptAt === undefined) throw new Error(`phase ${s.phase}`);
      maxDelay = Math.max(maxDelay, s.nextAttemptAt - now);
      now = s.nextAttemptAt;
      s = transition(s, { type: 'retry_due', at: now }, gw).state;
      s = transition(s, { type: 'connect_failed', at: now, error: 'x' }, gw).state;
    }
    expect(s.phase).toBe('recovering');
    expect(maxDelay).toBe(300_000);
  });

  it('the backoff level carries over when up less than 5 min and resets after 5 min up', () => {
    const firstDelay = (upFor: number) => {
      let s = transition(available(0), { type: 'exited', at: 0, error: 'x' }, gw).state;
      // three failed retries: level 4 afterwards (1 s, 2 s, 4 s, then 8 s scheduled)
      for (let i = 0; i < 3; i++) {
        if (s.phase !== 'recovering' || s.nextAttemptAt === undefined) throw new Error('expected a retry');
        const at = s.nextAttemptAt;
        s = transition(s, { type: 'retry_due', at }, gw).state;
        s = transition(s, { type: 'connect_failed', at, error: 'x' }, gw).state;
      }
      if (s.phase !== 'recovering' || s.nextAttemptAt === undefined) throw new Error('expected a retry');
      const upAt = s.nextAttemptAt;
      s = transition(s, { type: 'retry_due', at: upAt }, gw).state;
      s = transition(s, { type: 'connected', at: upAt }, gw).state;
      s = transition(s, { type: 'exited', at: upAt + upFor, error: 'x' }, gw).state;
      if (s.phase !== 'recovering' || s.nextAttemptAt === undefined) throw new Error('expected a retry');
      return s.nextAttemptAt - (upAt + upFor);
    };
    expect(firstDelay(60_000)).toBe(16_000);
    expect(firstDelay(300_000)).toBe(1_000);
  });
});

describe('jitter', () => {
  it('is seedable: the same seed gives the same delays, within ±20 %', () => {
    const policy = aggregatorPolicy({}, noEnv);
    const delays = (seed: number) => {
      let s = initialTransition('up', 0, seed).state;
      const out: number[] = [];
      let at = 0;
      for (let i = 0; i < 5; i++) {
        s = transition(s, { type: 'connect_failed', at, error: 'x' }, policy).state;
        if (s.phase !== 'recovering' || s.nextAttemptAt === undefined) throw new Error('expected a retry');
        out.push(s.nextAttemptAt - at);
        at = s.nextAttemptAt;
        s = transition(s, { type: 'retry_due', at }, policy).state;
      }
      return out;
    };
    expect(delays(7)).toEqual(delays(7));
    expect(delays(7)).not.toEqual(delays(8));
    delays(7).forEach((d, i) => {
      const nominal = 500 * 2 ** i;
      expect(d).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(d).toBeLessThanOrEqual(nominal * 1.2);
    });
  });
});

describe('invariants (property-based)', () => {
  const input = fc.oneof(
    fc.constant('connected' as const),
    fc.constant('connect_failed' as const),
    fc.constant('call_succeeded' as const),
    fc.constant('call_failed' as const),
    fc.constant('exited' as const),
    fc.constant('retry_due' as const),
    fc.constant('reinitialize' as const),
    fc.constant('restart' as const),
  );

  it('every phase change yields exactly one event naming it; no event without a change; failed is sticky', () => {
    const policy = aggregatorPolicy({ maxAttempts: 4, failedAfterMs: 50_000 }, noEnv);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(input, fc.integer({ min: 0, max: 20_000 })), { maxLength: 200 }),
        (steps) => {
          let { state } = initialTransition('up', 0, 1);
          let at = 0;
          for (const [type, dt] of steps) {
            at += dt;
            const i: LifecycleInput =
              type === 'connect_failed' || type === 'call_failed' || type === 'exited'
                ? { type, at, error: 'e' }
                : { type, at };
            const t = transition(state, i, policy);
            const ev = emits(t.effects);
            if (t.state.phase === state.phase) {
              expect(ev).toHaveLength(0);
            } else {
              expect(ev).toEqual([expect.objectContaining({ from: state.phase, to: t.state.phase, at })]);
            }
            if (state.phase === 'failed' && type !== 'reinitialize' && type !== 'restart') {
              expect(t.state.phase).toBe('failed');
            }
            state = t.state;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
