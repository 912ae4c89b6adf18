import { HISTOGRAM_BINS, binOf, percentiles } from './histogram.js';
import type { ToolStatsRow } from './types.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Windows up to this many minutes are read from minute buckets; longer ones from hour buckets. */
const MINUTE_WINDOW_LIMIT = 120;
/** Hours kept: the longest window (24 h) plus the partial oldest hour. */
const KEPT_HOURS = 25;

interface Bucket {
  /** The bucket's start, in minutes or hours since the epoch. */
  slot: number;
  calls: number;
  errors: number;
  hist: Uint32Array;
  /** The longest duration recorded in this bucket, ms: a percentile is never reported above it. */
  max: number;
}

interface Series {
  upstream: string | null;
  name: string;
  /** Ascending by slot; at most {@link MINUTE_WINDOW_LIMIT}. */
  minutes: Bucket[];
  /** Ascending by slot; at most {@link KEPT_HOURS}. */
  hours: Bucket[];
}

/** Adds one call to the newest bucket (a new one for a new `slot`), dropping slots more than `kept` older. */
function add(
  buckets: Bucket[],
  [slot, kept]: [number, number],
  call: { bin: number; error: boolean; durationMs: number },
): void {
  let b = buckets.at(-1);
  if (b === undefined || b.slot < slot) {
    b = { slot, calls: 0, errors: 0, hist: new Uint32Array(HISTOGRAM_BINS), max: 0 };
    buckets.push(b);
    let drop = 0;
    while ((buckets[drop]?.slot ?? Infinity) <= slot - kept) drop++;
    if (drop > 0) buckets.splice(0, drop);
  } // a late record (b.slot > slot: clock skew between tap and record) counts in the newest bucket
  b.calls++;
  if (call.error) b.errors++;
  b.hist[call.bin]!++;
  if (call.durationMs > b.max) b.max = call.durationMs;
}

/**
 * Pre-aggregated per-tool call statistics (issue 19, D2 "Tools"): per tool, buckets with calls, errors and a fixed
 * log-scale latency histogram — one per minute for the last 2 h, one per hour for the last 25 h. Recording is O(1);
 * a query sums at most 120 minute buckets (windows up to 2 h, e.g. 1 h) or 25 hour buckets (longer windows, whole
 * hours: 24 h reads the last 24 hour buckets, the current one included) of 100 bins per tool, however many calls
 * were recorded, so the Tools tab never scans exchanges. Each bucket also keeps its longest duration, and a
 * percentile is never reported above the longest call of the window (a bin's middle can lie above every call in it).
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
      this.#series.set(call.name, (s = { upstream: call.upstream, name: call.name, minutes: [], hours: [] }));
    const counted = { bin: binOf(call.durationMs), error: call.error, durationMs: call.durationMs };
    add(s.minutes, [Math.floor(call.at / MINUTE_MS), MINUTE_WINDOW_LIMIT], counted);
    add(s.hours, [Math.floor(call.at / HOUR_MS), KEPT_HOURS], counted);
  }

  /**
   * The rows of the Tools tab over a window ending now.
   *
   * @param windowMs - the window (1 h = 3 600 000, 24 h = 86 400 000)
   * @param now - the end of the window, epoch ms
   * @returns one row per tool with calls in the window, by name
   */
  query(windowMs: number, now: number): ToolStatsRow[] {
    const byMinute = windowMs <= MINUTE_WINDOW_LIMIT * MINUTE_MS;
    const unit = byMinute ? MINUTE_MS : HOUR_MS;
    const first = Math.floor(now / unit) - Math.ceil(windowMs / unit) + 1;
    const rows: ToolStatsRow[] = [];
    const hist = new Uint32Array(HISTOGRAM_BINS);
    for (const s of this.#series.values()) {
      const buckets = byMinute ? s.minutes : s.hours;
      hist.fill(0);
      let calls = 0;
      let errors = 0;
      let max = 0;
      for (let i = buckets.length - 1; i >= 0; i--) {
        const b = buckets[i]!;
        if (b.slot < first) break;
        calls += b.calls;
        errors += b.errors;
        if (b.max > max) max = b.max;
        for (let j = 0; j < HISTOGRAM_BINS; j++) hist[j]! += b.hist[j]!;
      }
      if (calls === 0) continue;
      // a bin's middle may lie above every call in it: never report more than the window's longest (to 0.01 ms)
      const ceiling = Math.floor(max * 100) / 100;
      const [p50 = 0, p95 = 0, p99 = 0] = percentiles(hist, calls, [0.5, 0.95, 0.99]).map((p) =>
        Math.min(p, ceiling),
      );
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
