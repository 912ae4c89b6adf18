/**
 * Results that carry their own JSON text. A merged list answered in one page is the same object for every
 * agent until an upstream's list changes, so its JSON is produced once per change instead of once per
 * request: for 20 upstreams × 50 tools that is ~300 KB of `JSON.stringify` saved on every `tools/list`
 * (issue 9, T4). A host that knows the key writes the bytes as they are; every other host serializes the
 * object as usual and gets the same text.
 */

// The text is kept under `@mcppipe/http`'s `SERIALIZED_RESULT` (its one home: the host that honours it) as a
// non-enumerable property: `JSON.stringify` ignores it, and a copy (`{ ...result }`, which an SDK codec makes when
// it changes a result on the way out) drops it, so a copy is never written with text that describes the original.
import { SERIALIZED_RESULT } from '@mcppipe/http';

const results = new WeakMap<readonly object[], Record<string, unknown>>();

/**
 * The one-page result `{ [field]: items }` for a merged list, the same frozen object for the same `items` array,
 * whose JSON text is computed on first use and kept with it.
 *
 * @param field - the list field (`tools`, `prompts`, `resources`, `resourceTemplates`)
 * @param items - a merged list (never mutated after it is built)
 */
export function wholeListResult(field: string, items: readonly object[]): Record<string, unknown> {
  if (items.length === 0) return { [field]: items }; // the empty list is one array shared by every kind
  let result = results.get(items);
  if (result === undefined) {
    const made: Record<string, unknown> = { [field]: items };
    let bytes: Buffer | undefined;
    Object.defineProperty(made, SERIALIZED_RESULT, {
      enumerable: false,
      get: () => (bytes ??= Buffer.from(JSON.stringify(made), 'utf8')),
    });
    result = Object.freeze(made);
    results.set(items, result);
  }
  return result;
}
