// ToolStats' percentiles never above the longest recorded call (a histogram bin's middle can be), and the 24 h
// query over 1,000,000 recorded calls still within its 50 ms budget with the per-bucket maximum kept.
import { describe, expect, it } from 'vitest';
import { ToolStats } from './stats.js';

const AT = Date.parse('2026-12-01T10:00:00Z');
const HOUR = 3_600_000;

describe('percentiles at most the slowest call', () => {
  it('two calls of 1,516 and 3,025 ms: p95 and p99 are 3,025 ms, not the 3.2 s of their bin', () => {
    const stats = new ToolStats();
    for (const durationMs of [1516, 3025])
      stats.record({ name: 'slow__call', upstream: 'slow', at: AT, durationMs, error: false });
    const [row] = stats.query(HOUR, AT + 1000);
    expect(row!.p95).toBe(3025);
    expect(row!.p99).toBe(3025);
    expect(row!.p50).toBeLessThanOrEqual(3025);
    expect(Math.abs(row!.p50 - 1516) / 1516).toBeLessThan(0.1);
  });

  it('the ceiling is the longest call in the window: an older, slower call outside 1 h does not count', () => {
    const stats = new ToolStats();
    stats.record({ name: 'a__b', upstream: 'a', at: AT - 3 * HOUR, durationMs: 9000, error: false });
    stats.record({ name: 'a__b', upstream: 'a', at: AT, durationMs: 3025, error: false });
    expect(stats.query(HOUR, AT + 1000)[0]!.p99).toBe(3025);
    const day = stats.query(24 * HOUR, AT + 1000)[0]!;
    expect(day.p99).toBeGreaterThan(3025);
    expect(day.p99).toBeLessThanOrEqual(9000);
  });

  it('the ceiling is rounded down to 0.01 ms; a call above its bin middle is not clamped', () => {
    const stats = new ToolStats();
    stats.record({ name: 'a__b', upstream: 'a', at: AT, durationMs: 65.129, error: false }); // bin middle 69.79
    expect(stats.query(HOUR, AT + 1000)[0]).toMatchObject({ p50: 65.12, p95: 65.12, p99: 65.12 });
    stats.record({ name: 'c__d', upstream: 'c', at: AT, durationMs: 75, error: false }); // same bin, above it
    expect(stats.query(HOUR, AT + 1000)[1]).toMatchObject({ p50: 69.79, p99: 69.79 });
  });

  it('the 24 h query over 1,000,000 calls in 50 tools takes ≤ 50 ms', () => {
    const stats = new ToolStats();
    const start = AT - 23 * HOUR; // within the 24 hour buckets the 24 h query reads
    for (let i = 0; i < 1_000_000; i++) {
      const tool = i % 50;
      stats.record({
        name: `u${tool % 5}__t${tool}`,
        upstream: `u${tool % 5}`,
        at: start + Math.floor((i / 1_000_000) * 23 * HOUR),
        durationMs: 1 + (i % 997),
        error: i % 13 === 0,
      });
    }
    const times: number[] = [];
    let rows = stats.query(24 * HOUR, AT);
    for (let n = 0; n < 5; n++) {
      const t0 = performance.now();
      rows = stats.query(24 * HOUR, AT);
      times.push(performance.now() - t0);
    }
    expect(rows).toHaveLength(50);
    expect(rows.reduce((sum, r) => sum + r.calls, 0)).toBe(1_000_000);
    for (const r of rows) expect(r.p99).toBeLessThanOrEqual(997);
    expect(times.sort((a, b) => a - b)[2]).toBeLessThanOrEqual(50);
  });
});
