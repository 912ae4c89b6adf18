/**
 * Resource subscriptions, counted: the first holder of a URI subscribes upstream, the last one to let go
 * unsubscribes. Holders are 2025-era session servers (`resources/subscribe`) and hosts serving 2026-07-28
 * listen streams (`subscribeResource`). An upstream `resources/updated` is re-emitted to the holders of
 * that resource only, under the URI each of them subscribed with.
 */
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { Logger } from './types.js';

/** Where a URI agents see lives upstream. */
export interface ResolvedUri {
  upstream: string;
  uri: string;
}

interface Entry {
  upstream: string;
  uri: string;
  /** Holder → the URI it subscribed with (agents may use either wrapped form of one resource). */
  holders: Map<object, string>;
  /** Settles when the upstream subscribe finished: whether it succeeded. */
  ready: Promise<boolean>;
}

/** The counted subscription table. */
export class Subscriptions {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly logger: Logger,
  ) {}

  private static key(upstream: string, uri: string): string {
    return `${upstream}\u0000${uri}`;
  }

  /**
   * Adds a holder for a resource; subscribes upstream for the first one.
   *
   * @throws the upstream's error when its `resources/subscribe` fails (the holder is not added)
   */
  async subscribe(holder: object, exposed: string, target: ResolvedUri): Promise<void> {
    const key = Subscriptions.key(target.upstream, target.uri);
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      existing.holders.set(holder, exposed);
      if (await existing.ready) return;
      // The first holder's subscribe failed and took the entry with it: try again as the first holder.
      return this.subscribe(holder, exposed, target);
    }
    const entry: Entry = { ...target, holders: new Map([[holder, exposed]]), ready: Promise.resolve(true) };
    const request = this.registry.request(target.upstream, {
      method: 'resources/subscribe',
      params: { uri: target.uri },
    });
    entry.ready = request.then(
      () => true,
      () => false,
    );
    this.entries.set(key, entry);
    try {
      await request;
    } catch (err) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw err;
    }
  }

  /** Removes a holder; unsubscribes upstream when it was the last one. Upstream errors are logged. */
  async unsubscribe(holder: object, target: ResolvedUri): Promise<void> {
    const key = Subscriptions.key(target.upstream, target.uri);
    const entry = this.entries.get(key);
    if (entry === undefined || !entry.holders.delete(holder) || entry.holders.size > 0) return;
    this.entries.delete(key);
    await entry.ready;
    try {
      await this.registry.request(target.upstream, {
        method: 'resources/unsubscribe',
        params: { uri: target.uri },
      });
    } catch (err) {
      this.logger.debug(
        { upstream: target.upstream, uri: target.uri, err: String(err) },
        'upstream unsubscribe failed',
      );
    }
  }

  /** Removes a holder from every resource (its session closed). */
  async release(holder: object): Promise<void> {
    const held = [...this.entries.values()].filter((e) => e.holders.has(holder));
    await Promise.all(held.map((e) => this.unsubscribe(holder, e)));
  }

  /** The holders of a resource with the URI each subscribed with. */
  holders(upstream: string, uri: string): ReadonlyMap<object, string> | undefined {
    return this.entries.get(Subscriptions.key(upstream, uri))?.holders;
  }

  /** Subscribes again upstream after a reconnect (the new connection has no subscriptions). */
  resubscribe(upstream: string): void {
    for (const entry of this.entries.values()) {
      if (entry.upstream !== upstream) continue;
      this.registry
        .request(upstream, { method: 'resources/subscribe', params: { uri: entry.uri } })
        .catch((err: unknown) => {
          this.logger.warn(
            { upstream, uri: entry.uri, err: String(err) },
            'could not renew a resource subscription after reconnect',
          );
        });
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
