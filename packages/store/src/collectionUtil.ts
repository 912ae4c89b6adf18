import { COLLECTION_NAME } from './defaults.js';
import { invalidOption } from './errors.js';
import type { Change } from './types.js';

/** The file backend's document: `version` plus one object per collection. */
export type Doc = Record<string, unknown> & { version: 1 };

/**
 * Checks a collection name.
 *
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS`
 */
export function collectionName(name: string): string {
  if (!COLLECTION_NAME.test(name) || name === 'version')
    throw invalidOption(
      'collection',
      `${JSON.stringify(name)} must match ${COLLECTION_NAME.source} and not be "version"`,
    );
  return name;
}

/**
 * JSON text of a value to store.
 *
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` when it has no JSON form (undefined, a function)
 */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined)
    throw invalidOption('value', 'must be JSON (an object, array, string, number or boolean)');
  return text;
}

/** Whether a stored value equals an expected one by JSON text (`undefined` = absent). */
export function sameJson(current: unknown, expected: unknown): boolean {
  if (current === undefined || expected === undefined) return current === expected;
  return JSON.stringify(current) === JSON.stringify(expected);
}

/** The change a compare-and-swap applies, or `undefined` when `expected` did not match. */
export function decideCas(
  matched: boolean,
  next: unknown,
  ttlMs: number | undefined,
): Change<unknown, unknown> | undefined {
  if (!matched) return undefined;
  if (next === undefined) return { op: 'delete' };
  return { op: 'set', value: next, ...(ttlMs === undefined ? {} : { ttlMs }) };
}

/**
 * Checks a TTL.
 *
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` unless a positive integer of milliseconds
 */
export function checkTtl(ttlMs: number | undefined): void {
  if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs < 1))
    throw invalidOption('ttlMs', `must be a positive integer of milliseconds, got ${ttlMs}`);
}

/** The newest record of `texts` (oldest first) whose id is `id`; the cheap text test skips most parses. */
export function findById<T extends { id: string }>(texts: readonly string[], id: string): T | undefined {
  const needle = JSON.stringify(id);
  for (let i = texts.length - 1; i >= 0; i--) {
    if (!texts[i]!.includes(needle)) continue;
    const r = JSON.parse(texts[i]!) as T;
    if (r.id === id) return r;
  }
  return undefined;
}
