// Display helpers: pure functions over API values (no logic the API lacks: labels, units, filters on fields).
import type { ExchangeStatus, ExchangeSummary } from './types.js';

/** `ok`, `isError`, `error -32602`, `http 503`. */
export function statusLabel(status: ExchangeStatus): string {
  if (typeof status === 'number') return `error ${status}`;
  if (status.startsWith('http_')) return `http ${status.slice(5)}`;
  return status;
}

/** The CSS class of a status: `ok`, `warn` (isError) or `bad`. */
export function statusClass(status: ExchangeStatus): 'ok' | 'warn' | 'bad' {
  if (status === 'ok') return 'ok';
  return status === 'isError' ? 'warn' : 'bad';
}

/** The Live tab's status filter values. */
export type StatusFilter = '' | 'ok' | 'error' | 'isError';

/** Live filters: each empty field matches everything. */
export interface LiveFilters {
  upstream: string;
  method: string;
  status: StatusFilter;
  caller: string;
}

/** The fields of an exchange the Live filters read. */
export type FilterFields = Pick<ExchangeSummary, 'upstream' | 'method' | 'status' | 'caller'>;

/** Whether an exchange matches the Live filters (the same meaning as the API's query parameters). */
export function matches(x: FilterFields, f: LiveFilters): boolean {
  if (f.upstream && x.upstream !== f.upstream) return false;
  if (f.method && x.method !== f.method) return false;
  if (f.caller && x.caller !== f.caller) return false;
  if (f.status === 'ok' || f.status === 'isError') return x.status === f.status;
  if (f.status === 'error') return x.status !== 'ok' && x.status !== 'isError';
  return true;
}

/**
 * The shown rows after Resume: the rows held back while paused that match the filters now in force, newest first,
 * in front of the shown ones, each id once (the caller caps the length).
 */
export function resumeRows(
  held: ExchangeSummary[],
  rows: ExchangeSummary[],
  f: LiveFilters,
): ExchangeSummary[] {
  const ids = new Set<string>();
  const once = (x: ExchangeSummary) => !ids.has(x.id) && !!ids.add(x.id);
  return [...held.filter((x) => matches(x, f)), ...rows].filter(once);
}

/**
 * What Pause holds back: the newest rows (at most the caller's bound, for memory) and, for the older ones dropped,
 * only a count per combination of the fields the filters read, so the button can still say how many match.
 */
export interface Held {
  rows: ExchangeSummary[];
  dropped: ReadonlyMap<string, number>;
}

/** Nothing held. */
export const NOTHING_HELD: Held = { rows: [], dropped: new Map() };

/** `held` with `x` in front; past `keep` rows, the oldest is counted in `dropped` instead of kept. */
export function hold(held: Held, x: ExchangeSummary, keep: number): Held {
  if (held.rows.length < keep) return { rows: [x, ...held.rows], dropped: held.dropped };
  const out = held.rows[held.rows.length - 1]!;
  const key = JSON.stringify([out.upstream, out.method, out.status, out.caller]);
  const dropped = new Map(held.dropped).set(key, (held.dropped.get(key) ?? 0) + 1);
  return { rows: [x, ...held.rows.slice(0, keep - 1)], dropped };
}

/** How many of the dropped rows of `held` match the filters. */
export function droppedMatching(held: Held, f: LiveFilters): number {
  let n = 0;
  for (const [key, count] of held.dropped) {
    const [upstream, method, status, caller] = JSON.parse(key) as [
      FilterFields['upstream'],
      FilterFields['method'],
      FilterFields['status'],
      FilterFields['caller'],
    ];
    if (matches({ upstream, method, status, caller }, f)) n += count;
  }
  return n;
}

/** The values the Live filters offer: those of every row seen, not only the filtered ones. */
export interface FilterChoices {
  upstream: readonly string[];
  method: readonly string[];
  caller: readonly string[];
}

/** No choices yet. */
export const NO_CHOICES: FilterChoices = { upstream: [], method: [], caller: [] };

/** `choices` with the values of `rows` added (the same object when none is new, so nothing re-renders). */
export function withChoices(choices: FilterChoices, rows: readonly ExchangeSummary[]): FilterChoices {
  const add = (field: keyof FilterChoices) => {
    const more = rows.map((x) => x[field]).filter((v): v is string => !!v && !choices[field].includes(v));
    return more.length === 0 ? choices[field] : [...new Set([...choices[field], ...more])].sort();
  };
  const next = { upstream: add('upstream'), method: add('method'), caller: add('caller') };
  return (Object.keys(next) as (keyof FilterChoices)[]).every((k) => next[k] === choices[k]) ? choices : next;
}

/** `3,000`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The filters as API query parameters (empty ones left out). */
export function filterQuery(f: LiveFilters, limit: number): Record<string, string> {
  const q: Record<string, string> = { limit: String(limit) };
  for (const [k, v] of Object.entries(f)) if (v) q[k] = v;
  return q;
}

/** `12 ms`, `1.4 s`. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;
}

/** A duration read from a histogram (the Tools tab's percentiles, within ±9 %): `≈12 ms`, `≈1.6 s`. */
export function approxMs(value: number | null | undefined): string {
  const shown = ms(value);
  return shown === '–' ? shown : `≈${shown}`;
}

/** `512 B`, `3.2 KiB`. */
export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  return value < 1024 * 1024 ? `${(value / 1024).toFixed(1)} KiB` : `${(value / 1048576).toFixed(1)} MiB`;
}

/** Local time of an ISO string or epoch ms, `HH:MM:SS`. */
export function clock(at: string | number | null | undefined): string {
  if (at === null || at === undefined) return '–';
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toLocaleTimeString([], { hour12: false });
}

/** Local date and time of an ISO string or epoch ms, `YYYY-MM-DD HH:MM:SS` (for what may be days old). */
export function dateTime(at: string | number | null | undefined): string {
  if (at === null || at === undefined) return '–';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clock(d.getTime())}`;
}

/** `upstream__tool` from a stats row (its name may be exposed already). */
export function exposedName(upstream: string | null, name: string): string {
  return !upstream || name.startsWith(`${upstream}__`) ? name : `${upstream}__${name}`;
}
