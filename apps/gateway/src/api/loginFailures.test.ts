import { describe, expect, it } from 'vitest';
import { FailureWindows, LOGIN_FAILURES_PER_MINUTE, MAX_TRACKED_LOGINS } from './loginFailures.js';

describe('FailureWindows', () => {
  it('makes a pair wait after the limit until its window (from the first failure) ends', () => {
    const w = new FailureWindows();
    for (let i = 0; i < LOGIN_FAILURES_PER_MINUTE - 1; i++) w.fail('alice\u0000127.0.0.1', 1_000 + i);
    expect(w.waitMs('alice\u0000127.0.0.1', 2_000)).toBe(0);
    w.fail('alice\u0000127.0.0.1', 2_000);
    expect(w.waitMs('alice\u0000127.0.0.1', 2_000)).toBe(59_000);
    expect(w.waitMs('alice\u0000127.0.0.2', 2_000)).toBe(0); // another address
    expect(w.waitMs('alice\u0000127.0.0.1', 61_000)).toBe(0); // the window ended
    w.fail('alice\u0000127.0.0.1', 61_000); // a new window: one failure
    expect(w.waitMs('alice\u0000127.0.0.1', 61_000)).toBe(0);
  });

  it('forgets a pair on success, and the oldest pair when the table is full', () => {
    const w = new FailureWindows();
    for (let i = 0; i < LOGIN_FAILURES_PER_MINUTE; i++) w.fail('bob', 0);
    expect(w.waitMs('bob', 10)).toBe(59_990);
    w.clear('bob');
    expect(w.waitMs('bob', 10)).toBe(0);
    for (let i = 0; i < LOGIN_FAILURES_PER_MINUTE; i++) w.fail('first', 0);
    for (let i = 1; i < MAX_TRACKED_LOGINS; i++) w.fail(`pair-${i}`, 0);
    expect(w.waitMs('first', 10)).toBe(59_990); // the table is full, nothing forgotten yet
    w.fail('one-more', 0);
    expect(w.waitMs('first', 10)).toBe(0); // the oldest pair was forgotten
  });
});
