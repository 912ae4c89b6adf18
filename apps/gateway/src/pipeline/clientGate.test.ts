import { describe, expect, it } from 'vitest';
import { ClientGate } from './clientGate.js';
import { exceedsDepth } from '@mcppipe/http';

describe('ClientGate', () => {
  const make = (over: Partial<ConstructorParameters<typeof ClientGate>[0]> = {}) => {
    let now = 0;
    const gate = new ClientGate({
      requestsPerMinute: 100,
      maxInFlight: 2,
      tableSize: 3,
      now: () => now,
      ...over,
    });
    return { gate, tick: (ms: number) => void (now += ms) };
  };

  it('refuses beyond the concurrency limit at once, and admits again after a release', () => {
    const { gate } = make();
    const a = gate.acquire('c');
    const b = gate.acquire('c');
    expect(a.ok && b.ok).toBe(true);
    expect(gate.acquire('c')).toEqual({ ok: false, reason: 'concurrency', retryAfterSec: 1 });
    expect(gate.acquire('other').ok).toBe(true);
    if (a.ok) a.release();
    expect(gate.inFlight('c')).toBe(1);
    expect(gate.acquire('c').ok).toBe(true);
  });

  it('release is idempotent: a permit released twice frees one slot', () => {
    const { gate } = make();
    const a = gate.acquire('c');
    gate.acquire('c');
    if (a.ok) {
      a.release();
      a.release();
    }
    expect(gate.inFlight('c')).toBe(1);
  });

  it('refuses beyond the per-minute budget with the seconds left in the window', () => {
    const { gate, tick } = make({ requestsPerMinute: 2, maxInFlight: 10 });
    gate.acquire('c');
    tick(15_000);
    gate.acquire('c');
    expect(gate.acquire('c')).toEqual({ ok: false, reason: 'rate', retryAfterSec: 45 });
    tick(45_000);
    expect(gate.acquire('c').ok).toBe(true);
  });

  it('keeps its table bounded: idle clients are dropped, busy ones never are', () => {
    const { gate } = make({ tableSize: 2, maxInFlight: 5 });
    const a = gate.acquire('a');
    const b = gate.acquire('b');
    expect(gate.acquire('c')).toMatchObject({ ok: false });
    if (b.ok) b.release();
    expect(gate.acquire('c').ok).toBe(true);
    expect(gate.size).toBe(2);
    expect(gate.inFlight('a')).toBe(1);
    if (a.ok) a.release();
  });
});

describe('exceedsDepth', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('counts nesting outside strings only', () => {
    expect(exceedsDepth(enc('{"a":[[1]]}'), 3)).toBe(false);
    expect(exceedsDepth(enc('{"a":[[[1]]]}'), 3)).toBe(true);
    expect(exceedsDepth(enc('{"a":"[[[[[[\\"[[[["}'), 1)).toBe(false);
  });
  it('stops early on a huge nested body', () => {
    expect(exceedsDepth(enc('['.repeat(1_000_000)), 100)).toBe(true);
  });
});
