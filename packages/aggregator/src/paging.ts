/**
 * Paging of merged lists with an opaque, stable cursor. A cursor remembers the key of the last item
 * served and its position: the next page starts right after that item, wherever it now is, so a walk
 * returns every item exactly once while the list is unchanged and never repeats the served prefix when
 * items were added or removed elsewhere in the meantime.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

type Obj = Record<string, unknown>;

/** One page of a merged list. */
export interface Page {
  items: readonly Obj[];
  nextCursor?: string;
}

interface CursorState {
  /** Key of the last item served. */
  k: string;
  /** Index of the next item at the time. */
  i: number;
}

function encodeCursor(state: CursorState): string {
  return `m1.${Buffer.from(JSON.stringify(state), 'utf8').toString('base64url')}`;
}

function decodeCursor(cursor: string): CursorState {
  const invalid = () =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid cursor: ${JSON.stringify(cursor.slice(0, 100))}`,
    );
  if (!cursor.startsWith('m1.')) throw invalid();
  try {
    const state = JSON.parse(
      Buffer.from(cursor.slice(3), 'base64url').toString('utf8'),
    ) as Partial<CursorState>;
    if (typeof state.k === 'string' && Number.isSafeInteger(state.i) && (state.i ?? -1) >= 0) {
      return { k: state.k, i: state.i as number };
    }
  } catch {
    // fall through
  }
  throw invalid();
}

/**
 * One page of `items`.
 *
 * @param items - the merged list
 * @param cursor - the agent's cursor, if any
 * @param paging - items per page, and the unique key of an item (its exposed name or URI)
 * @returns the page, with `nextCursor` when more items follow
 * @throws ProtocolError -32602 for a cursor this aggregator did not issue
 */
export function pageOf(
  items: readonly Obj[],
  cursor: string | undefined,
  paging: { pageSize: number; keyOf: (item: Obj) => string },
): Page {
  const { pageSize, keyOf } = paging;
  let start = 0;
  if (cursor !== undefined) {
    const { k, i } = decodeCursor(cursor);
    const before = items[i - 1];
    if (before !== undefined && keyOf(before) === k) start = i;
    else {
      const at = items.findIndex((item) => keyOf(item) === k);
      start = at >= 0 ? at + 1 : Math.min(i, items.length);
    }
  }
  if (start === 0 && items.length <= pageSize) return { items };
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  const last = page.at(-1);
  if (end >= items.length || last === undefined) return { items: page };
  return { items: page, nextCursor: encodeCursor({ k: keyOf(last), i: end }) };
}
