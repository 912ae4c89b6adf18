import { describe, expect, it } from 'vitest';
import { SessionTable } from './sessionTable.js';

describe('SessionTable', () => {
  it('evicts the least recently used entry beyond max', () => {
    const evicted: string[] = [];
    const t = new SessionTable<number>(2, 1000, (id, _v, reason) => evicted.push(`${id}:${reason}`));
    t.set('a', 1, 0);
    t.set('b', 2, 1);
    expect(t.touch('a', 2)).toBe(1); // a is now younger than b
    t.set('c', 3, 3);
    expect(evicted).toEqual(['b:evicted']);
    expect(t.values()).toEqual([1, 3]);
  });

  it('sweeps entries idle longer than idleMs, oldest first, and stops at the first young one', () => {
    const evicted: string[] = [];
    const t = new SessionTable<number>(10, 100, (id, _v, reason) => evicted.push(`${id}:${reason}`));
    t.set('a', 1, 0);
    t.set('b', 2, 50);
    t.set('c', 3, 200);
    t.sweep(140);
    expect(evicted).toEqual(['a:idle']);
    expect(t.size).toBe(2);
  });

  it('delete does not call onEvict; unknown ids touch to undefined', () => {
    const t = new SessionTable<number>(10, 100, () => {
      throw new Error('must not be called');
    });
    t.set('a', 1, 0);
    expect(t.delete('a')).toBe(true);
    expect(t.touch('a', 1)).toBeUndefined();
  });
});
