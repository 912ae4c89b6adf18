import type { Aggregator } from './types.js';

/**
 * Adapts {@link Aggregator.subscribeResource} to a host's per-listen-stream hook (`@mcppipe/http`'s
 * `onResourceSubscriptions`): every URI a 2026-07-28 `subscriptions/listen` stream asks for is held upstream
 * while the stream is open. A URI that cannot be subscribed (unknown, not wrapped) is skipped; the others hold.
 *
 * @param aggregator - the aggregator serving the endpoint
 * @returns `(uris) => release`
 * @example Wiring a host
 * ```ts
 * const host = createMcpHttpHost(aggregator.createServer, { onResourceSubscriptions: listenStreamSubscriptions(aggregator) });
 * ```
 */
export function listenStreamSubscriptions(
  aggregator: Pick<Aggregator, 'subscribeResource'>,
): (uris: string[]) => Promise<() => Promise<void>> {
  return async (uris) => {
    const held = await Promise.allSettled(uris.map((uri) => aggregator.subscribeResource(uri)));
    return async () => {
      await Promise.allSettled(held.map((h) => (h.status === 'fulfilled' ? h.value() : undefined)));
    };
  };
}
