import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { pageOf } from './paging.js';

const items = (names: string[]) => names.map((name) => ({ name }));
const keyOf = (item: Record<string, unknown>) => String(item['name']);

function walk(
  list: Record<string, unknown>[],
  pageSize: number,
  mutate?: (page: number) => Record<string, unknown>[],
) {
  const out: string[] = [];
  let cursor: string | undefined;
  let current = list;
  for (let page = 0; page < 1000; page++) {
    const result = pageOf(current, cursor, { pageSize, keyOf });
    out.push(...result.items.map(keyOf));
    cursor = result.nextCursor;
    if (cursor === undefined) return out;
    if (mutate) current = mutate(page);
  }
  throw new Error('walk did not end');
}

describe('pageOf', () => {
  it('answers short lists in one page without a cursor', () => {
    const list = items(['a', 'b']);
    expect(pageOf(list, undefined, { pageSize: 5, keyOf })).toEqual({ items: list });
  });

  it('returns every item exactly once over a full walk', () => {
    for (let length = 0; length <= 40; length++) {
      const names = Array.from({ length }, (_, i) => `t${i}`);
      for (let size = 1; size <= 9; size++) expect(walk(items(names), size)).toEqual(names);
    }
  });

  it('neither repeats nor skips the served prefix when items change elsewhere mid-walk', () => {
    const base = items(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const added = items(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    const removedBefore = items(['b', 'c', 'd', 'e', 'f', 'g']);
    expect(walk(base, 3, () => added)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(walk(base, 3, () => removedBefore)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('rejects a cursor it did not issue with -32602', () => {
    const list = items(['a', 'b', 'c']);
    for (const cursor of ['p4', 'm1.!!!', `m1.${Buffer.from('{"k":1}').toString('base64url')}`]) {
      expect(() => pageOf(list, cursor, { pageSize: 1, keyOf })).toThrow(ProtocolError);
      try {
        pageOf(list, cursor, { pageSize: 1, keyOf });
      } catch (err) {
        expect((err as ProtocolError).code).toBe(-32602);
      }
    }
  });
});
