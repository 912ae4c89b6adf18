/**
 * Reads one upstream list to its end: follows `nextCursor` page by page, with loop protection. A page
 * that adds no new item, a cursor seen before, or the page cap stops the walk; the reason is reported so
 * the upstream can be flagged. An upstream that advertises the capability but answers -32601 yields an
 * empty list and stays healthy.
 */
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { DroppedItem, ListKind, ListStopReason } from './types.js';

/** How one list kind is read. */
export interface ListSpec {
  kind: ListKind;
  /** The JSON-RPC method. */
  method: string;
  /** The server capability that must be advertised. */
  capability: 'tools' | 'prompts' | 'resources';
  /** The identity of an item within one upstream (name or URI), for duplicate and loop detection. */
  keyOf(item: unknown): string | undefined;
}

function field(name: string): (item: unknown) => string | undefined {
  return (item) => {
    if (typeof item !== 'object' || item === null) return undefined;
    const v = (item as Record<string, unknown>)[name];
    return typeof v === 'string' ? v : undefined;
  };
}

/** The four merged lists. */
export const LIST_SPECS: Readonly<Record<ListKind, ListSpec>> = {
  tools: { kind: 'tools', method: 'tools/list', capability: 'tools', keyOf: field('name') },
  prompts: { kind: 'prompts', method: 'prompts/list', capability: 'prompts', keyOf: field('name') },
  resources: { kind: 'resources', method: 'resources/list', capability: 'resources', keyOf: field('uri') },
  resourceTemplates: {
    kind: 'resourceTemplates',
    method: 'resources/templates/list',
    capability: 'resources',
    keyOf: field('uriTemplate'),
  },
};

/** The raw items of one upstream list, with what the walk saw. */
export interface FetchedList {
  items: unknown[];
  pages: number;
  stopped?: ListStopReason;
  methodNotFound?: true;
  /** Items dropped during the walk (duplicates within the upstream). */
  dropped: DroppedItem[];
  /** A failure after the first page: the items before it are kept. */
  error?: string;
}

/** What {@link fetchList} needs. */
export interface FetchListOptions {
  registry: UpstreamRegistry;
  maxPages: number;
  timeoutMs: number;
}

function isMethodNotFound(err: unknown): boolean {
  return err instanceof ProtocolError && err.code === ProtocolErrorCode.MethodNotFound;
}

/**
 * Reads every page of one list of one upstream.
 *
 * @throws whatever the first page's request throws, except -32601 (an empty list)
 */
export async function fetchList(
  upstream: string,
  spec: ListSpec,
  options: FetchListOptions,
): Promise<FetchedList> {
  const out: FetchedList = { items: [], pages: 0, dropped: [] };
  const seenKeys = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    if (out.pages >= options.maxPages) {
      out.stopped = 'page_cap';
      return out;
    }
    let page: Record<string, unknown>;
    try {
      page = await options.registry.request(
        upstream,
        { method: spec.method, params: cursor === undefined ? {} : { cursor } },
        { timeoutMs: options.timeoutMs },
      );
    } catch (err) {
      if (out.pages === 0 && isMethodNotFound(err)) {
        out.methodNotFound = true;
        return out;
      }
      if (out.pages === 0) throw err;
      out.error = err instanceof Error ? err.message : String(err);
      return out;
    }
    out.pages += 1;
    const raw = page[spec.kind];
    const items: unknown[] = Array.isArray(raw) ? raw : [];
    if (!Array.isArray(raw)) out.error = `page ${out.pages} has no "${spec.kind}" array`;
    const fresh: unknown[] = [];
    const duplicates: DroppedItem[] = [];
    items.forEach((item, i) => {
      const key = spec.keyOf(item);
      if (key === undefined) {
        fresh.push(item);
      } else if (seenKeys.has(key)) {
        duplicates.push({
          kind: spec.kind,
          name: key,
          index: out.items.length + i,
          reason: 'duplicate of an earlier item',
        });
      } else {
        seenKeys.add(key);
        fresh.push(item);
      }
    });
    if (fresh.length === 0 && out.pages > 1) {
      out.stopped = 'no_new_items';
      return out;
    }
    out.items.push(...fresh);
    out.dropped.push(...duplicates);
    const next = page['nextCursor'];
    if (typeof next !== 'string' || next === '') return out;
    if (seenCursors.has(next)) {
      out.stopped = 'repeating_cursor';
      return out;
    }
    seenCursors.add(next);
    cursor = next;
  }
}
