import { HISTOGRAM_BINS, binOf, percentiles } from './histogram.js';
import type { ToolStatsRow } from './types.js';

const MINUTE_MS = 60_000;
/** Minutes kept: the longest window (24 h). */
const KEPT_MINUTES = 24 * 60;

interface MinuteBucket {
  minute: number;
  calls: number;
  errors: number;
  hist: Uint32Array;
}

interface Series {
  upstream: string | null;
  name: string;
  /** Ascending by minute; at most {@link KEPT_MINUTES}. */
  buckets: MinuteBucket[];
}

/**
 * Pre-aggregated per-tool call statistics (issue 19, D2 "Tools"): per tool, one bucket per minute with calls,
 * errors and a fixed log-scale latency histogram, kept for 24 h. Recording is O(1); a query over a window sums at
 * most (window minutes × 100 bins) per tool, however many calls were recorded, so the Tools tab never scans
 * exchanges.
 *
 * @example
 * ```ts
 * const stats = new ToolStats();
 * stats.record({ name: 'fs__read', upstream: 'fs', at: Date.now(), durationMs: 12, error: false });
 * stats.query(3_600_000, Date.now()); // [{ name: 'fs__read', calls: 1, p50: 11.31, … }]
 * ```
 */
export class ToolStats {
  readonly #series = new Map<string, Series>();

  /**
   * Counts one call.
   *
   * @param call - the exposed name and its upstream, when it started (epoch ms), how long it took, whether it failed
   */
  record(call: {
    name: string;
    upstream: string | null;
    at: number;
    durationMs: number;
    error: boolean;
  }): void {
    let s = this.#series.get(call.name);
    if (s === undefined)
      this.#series.set(call.name, (s = { upstream: call.upstream, name: call.name, buckets: [] }));
    const minute = Math.floor(call.at / MINUTE_MS);
    let b = s.buckets.at(-1);
    if (b === undefined || b.minute < minute) {
      b = { minute, calls: 0, errors: 0, hist: new Uint32Array(HISTOGRAM_BINS) };
      s.buckets.push(b);
      const oldest = minute - KEPT_MINUTES;
      let drop = 0;
      while ((s.buckets[drop]?.minute ?? Infinity) <= oldest) drop++;
      if (drop > 0) s.buckets.splice(0, drop);
    } // a late record (b.minute > minute) counts in the newest bucket
    b.calls++;
    if (call.error) b.errors++;
    b.hist[binOf(call.durationMs)]!++;
  }

  /**
   * The rows of the Tools tab over a window ending now.
   *
   * @param windowMs - the window (1 h = 3 600 000, 24 h = 86 400 000)
   * @param now - the end of the window, epoch ms
   * @returns one row per tool with calls in the window, by name
   */
  query(windowMs: number, now: number): ToolStatsRow[] {
    const first = Math.floor(now / MINUTE_MS) - Math.ceil(windowMs / MINUTE_MS) + 1;
    const rows: ToolStatsRow[] = [];
    const hist = new Uint32Array(HISTOGRAM_BINS);
    for (const s of this.#series.values()) {
      hist.fill(0);
      let calls = 0;
      let errors = 0;
      for (let i = s.buckets.length - 1; i >= 0; i--) {
        const b = s.buckets[i]!;
        if (b.minute < first) break;
        calls += b.calls;
        errors += b.errors;
        for (let j = 0; j < HISTOGRAM_BINS; j++) hist[j]! += b.hist[j]!;
      }
      if (calls === 0) continue;
      const [p50 = 0, p95 = 0, p99 = 0] = percentiles(hist, calls, [0.5, 0.95, 0.99]);
      rows.push({
        upstream: s.upstream,
        name: s.name,
        calls,
        errors,
        errorRate: errors / calls,
        p50,
        p95,
        p99,
      });
    }
    return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
