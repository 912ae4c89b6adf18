/**
 * Diffing two layouts for hot reload (DESIGN.md G10): added start, removed stop, changed restart,
 * unchanged keep their connections.
 */
import type { UpstreamConfig } from './types.js';

/** One upstream whose configuration changed (restart it). */
export interface UpstreamChange {
  /** The upstream's name (the same in both). */
  name: string;
  /** The running configuration. */
  previous: UpstreamConfig;
  /** The new configuration: restart with it. */
  next: UpstreamConfig;
  /** The top-level fields that differ, sorted (`['env']`, `['command', 'transport', 'url']`). */
  fields: string[];
}

/** What changed between two layouts; every list is in name order. */
export interface LayoutDiff {
  /** In `next` only: start them. */
  added: UpstreamConfig[];
  /** In `previous` only: stop them. */
  removed: UpstreamConfig[];
  /** In both with any field different (deep comparison): restart them. */
  changed: UpstreamChange[];
  /** In both and deeply equal: keep their connections. */
  unchanged: UpstreamConfig[];
}

/**
 * Whether two JSON-like values are deeply equal (key order of objects ignored).
 *
 * @param a - a value built from strings, numbers, booleans, null, arrays and plain objects
 * @param b - another
 * @returns true when equal
 * @example Key order does not matter
 * ```ts
 * deepEqual({ env: { A: '1', B: '2' } }, { env: { B: '2', A: '1' } }); // true
 * ```
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * Diffs two layouts by upstream name (pure). "Changed" means any field differs, deeply: a new `env`
 * value, a reordered `args`, a `hub` flag, a switch from stdio to HTTP.
 *
 * @param previous - the running layout (only `upstreams` is read)
 * @param next - the new layout
 * @returns the diff, each list sorted by name
 * @example Applying a reload
 * ```ts
 * const { added, removed, changed } = diffLayouts(running, next);
 * for (const u of removed) await supervisor.remove(u.name);
 * for (const c of changed) await supervisor.replace(c.next);
 * for (const u of added) await supervisor.add(u);
 * ```
 */
export function diffLayouts(
  previous: { readonly upstreams: readonly UpstreamConfig[] },
  next: { readonly upstreams: readonly UpstreamConfig[] },
): LayoutDiff {
  const before = new Map(previous.upstreams.map((u) => [u.name, u]));
  const after = new Map(next.upstreams.map((u) => [u.name, u]));
  const diff: LayoutDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const [name, u] of after) {
    const old = before.get(name);
    if (old === undefined) {
      diff.added.push(u);
      continue;
    }
    const rOld = old as unknown as Record<string, unknown>;
    const rNew = u as unknown as Record<string, unknown>;
    const fields = [...new Set([...Object.keys(rOld), ...Object.keys(rNew)])]
      .filter((k) => !deepEqual(rOld[k], rNew[k]))
      .sort();
    if (fields.length === 0) diff.unchanged.push(u);
    else diff.changed.push({ name, previous: old, next: u, fields });
  }
  for (const [name, u] of before) if (!after.has(name)) diff.removed.push(u);
  diff.added.sort(byName);
  diff.removed.sort(byName);
  diff.changed.sort(byName);
  diff.unchanged.sort(byName);
  return diff;
}
