/** A parsed `<n>/<unit>` rate: `count` tokens per `periodMs`. */
export interface Rate {
  count: number;
  periodMs: number;
}

const UNITS: Record<string, number> = { s: 1_000, min: 60_000, h: 3_600_000 };
const RATE = /^([1-9][0-9]{0,5})\/(s|min|h)$/u;

/**
 * Parses a rate string.
 *
 * @param rate - `"10/min"`, `"5/s"`, `"100/h"` (n from 1 to 999999)
 * @returns the rate, or undefined when the string is not one
 */
export function parseRate(rate: unknown): Rate | undefined {
  if (typeof rate !== 'string') return undefined;
  const m = RATE.exec(rate);
  if (m === null) return undefined;
  return { count: Number(m[1]), periodMs: UNITS[m[2] ?? ''] ?? 0 };
}
