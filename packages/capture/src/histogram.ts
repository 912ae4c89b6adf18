/**
 * A fixed log-scale latency histogram: 4 bins per doubling from 1/16 ms to 2^21 ms (about 35 min), 100 bins. A
 * percentile read from it is the geometric middle of its bin, within ±9 % of the exact value.
 *
 * @module
 */

/** Bins per doubling of the duration. */
export const BINS_PER_OCTAVE = 4;
const MIN_EXP = -4;
const MAX_EXP = 21;

/** Number of bins. */
export const HISTOGRAM_BINS = (MAX_EXP - MIN_EXP) * BINS_PER_OCTAVE;

/**
 * The bin of a duration.
 *
 * @param ms - a duration in ms (clamped into the histogram's range)
 * @returns its bin index, 0…{@link HISTOGRAM_BINS}-1
 */
export function binOf(ms: number): number {
  if (!(ms > 0)) return 0;
  const i = Math.floor((Math.log2(ms) - MIN_EXP) * BINS_PER_OCTAVE);
  return i < 0 ? 0 : i >= HISTOGRAM_BINS ? HISTOGRAM_BINS - 1 : i;
}

/**
 * The value a bin stands for: the geometric middle of its bounds.
 *
 * @param bin - a bin index
 * @returns a duration in ms
 */
export function binValue(bin: number): number {
  return 2 ** (MIN_EXP + (bin + 0.5) / BINS_PER_OCTAVE);
}

/**
 * Percentiles of a histogram, read in one pass.
 *
 * @param hist - counts per bin
 * @param total - the sum of the counts
 * @param quantiles - ascending, each in (0, 1]
 * @returns one duration (ms, rounded to 0.01) per quantile; 0 when the histogram is empty
 */
export function percentiles(hist: ArrayLike<number>, total: number, quantiles: number[]): number[] {
  const out = quantiles.map(() => 0);
  if (total === 0) return out;
  let seen = 0;
  let q = 0;
  for (let bin = 0; bin < hist.length && q < quantiles.length; bin++) {
    seen += hist[bin] ?? 0;
    while (q < quantiles.length && seen >= Math.ceil(quantiles[q]! * total)) {
      out[q] = Math.round(binValue(bin) * 100) / 100;
      q++;
    }
  }
  return out;
}
