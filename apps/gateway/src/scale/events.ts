/**
 * Webhook subscriptions and tool pins shared by every node (DESIGN.md S1, E3, E4): with `--redis` the documents
 * that one node keeps in `DATA_DIR/events/<key>.json` live in `mcppipe:events:<key>`, and each write is announced on
 * the `events` channel so the other nodes re-read it. Events themselves are not shared: each node delivers the
 * events that happen on it (its servers' states, its tunnels), so a webhook fires once per event, by that node.
 *
 * @module
 */
import type { EventsStore } from '@mcppipe/events';
import type { Store } from '@mcppipe/store';

/** The pub/sub channel announcing a changed document (its key). */
export const EVENTS_CHANNEL = 'events';

/**
 * The events store over the shared store.
 *
 * @param store - the Redis store (`--redis`)
 * @returns the store the event scopes keep their webhooks and pins in
 */
export function sharedEventsStore(store: Store): EventsStore {
  const docs = store.collection<unknown>('events');
  return {
    read: (key) => docs.get(key),
    async write(key, value) {
      await docs.set(key, value);
      await store.publish(EVENTS_CHANNEL, key);
    },
    watch: (fn) => store.subscribe(EVENTS_CHANNEL, fn),
  };
}
