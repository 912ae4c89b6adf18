/**
 * The upstream-name rules, from `@mcppipe/namespace` (their only owner, STYLE.md §6).
 *
 * TEMPORARY local stand-in while `@mcppipe/namespace` is being written: same signatures, same
 * behaviour, same messages. Becomes re-exports once the package is published in the workspace.
 */
import { McpPipeError } from '@mcppipe/errors';

const RULE = 'must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"';

export function isValidUpstreamName(name: string): boolean {
  return /^[a-z][a-z0-9_-]{0,31}$/.test(name) && !name.includes('__') && !name.endsWith('_');
}

export function validateUpstreamName(name: string): void {
  if (!isValidUpstreamName(name)) {
    throw new McpPipeError(
      'MCPP_NS_INVALID_NAME',
      `upstream name ${JSON.stringify(name)} is invalid: ${RULE}`,
      {
        data: { name },
      },
    );
  }
}

const cut = (s: string, max: number): string => s.slice(0, max).replace(/_+$/, '');

export function sanitizeUpstreamName(key: string): string {
  let s = '';
  for (const point of key.toLowerCase()) s += /^[a-z0-9_-]$/.test(point) ? point : '-';
  s = s.replace(/_{2,}/g, '_');
  if (!/^[a-z]/.test(s)) s = `srv-${s}`;
  return cut(s, 32);
}

export function sanitizeUpstreamNames(keys: readonly string[]): {
  readonly names: readonly string[];
  readonly renames: readonly { readonly key: string; readonly name: string }[];
} {
  const names = new Array<string>(keys.length);
  const taken = new Set<string>();
  const order = keys.map((key, index) => ({ key, index, base: sanitizeUpstreamName(key) }));
  order.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.index - b.index);
  const pending: typeof order = [];
  for (const entry of order) {
    if (entry.base === entry.key && !taken.has(entry.key)) {
      taken.add(entry.key);
      names[entry.index] = entry.key;
    } else pending.push(entry);
  }
  for (const entry of pending) {
    let name = entry.base;
    for (let n = 2; taken.has(name); n++) name = cut(entry.base, 32 - `-${n}`.length) + `-${n}`;
    taken.add(name);
    names[entry.index] = name;
  }
  return {
    names,
    renames: keys.flatMap((key, i) => (names[i] === key ? [] : [{ key, name: names[i] ?? key }])),
  };
}
