import { MAX_SUGGESTIONS } from './defaults.js';

/**
 * Levenshtein distance between `a` and `b` (insertions, deletions, substitutions each cost 1), case-sensitive.
 * Two rows of memory; O(|a|·|b|) time.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let curr = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      curr[j] = Math.min(prev[j]! + 1, curr[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length]!;
}

/**
 * The names in `candidates` close to `wanted`, best first: compared case-insensitively with `-`, `_`, `.` and
 * spaces ignored, a candidate matches when its edit distance is at most a third of the longer name (at least 2),
 * or when one contains the other. Ties keep the order of `candidates`.
 *
 * @param wanted - the name the agent asked for
 * @param candidates - the names that exist
 * @param limit - maximum number of suggestions (default 5)
 * @returns up to `limit` candidate names
 */
export function closeMatches(
  wanted: string,
  candidates: readonly string[],
  limit = MAX_SUGGESTIONS,
): string[] {
  const w = normalize(wanted);
  const scored: { name: string; score: number; index: number }[] = [];
  candidates.forEach((name, index) => {
    if (name === wanted) return;
    const c = normalize(name);
    const distance = editDistance(w, c);
    const budget = Math.max(2, Math.floor(Math.max(w.length, c.length) / 3));
    const contains = w.length >= 3 && c.length >= 3 && (c.includes(w) || w.includes(c));
    if (distance <= budget) scored.push({ name, score: distance, index });
    else if (contains) scored.push({ name, score: budget + 1, index });
  });
  scored.sort((x, y) => x.score - y.score || x.index - y.index);
  return scored.slice(0, limit).map((s) => s.name);
}

function normalize(s: string): string {
  return s.toLowerCase().replace(/[-_.\s]/g, '');
}
