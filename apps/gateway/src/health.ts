/**
 * `/health` data: each server's phase, last change, last error and tool count. Tool counts are cached per
 * connection generation and dropped on `tools/list_changed`, so a health probe lists an upstream's tools
 * at most once per change.
 *
 * @module
 */
import type { UpstreamNotificationEvent, UpstreamRegistry, UpstreamSnapshot } from '@mcppipe/supervisor';

/** One server in the `/health` answer. */
export interface ServerHealth {
  name: string;
  phase: UpstreamSnapshot['phase'];
  /** ISO time of the last phase change. */
  lastChange: string;
  lastError: string | null;
  /** Number of tools, or null when unknown (not available, or listing failed). */
  tools: number | null;
}

const MAX_PAGES = 50;

/** Counts tools per upstream with a per-generation cache. */
export class ToolCounter {
  readonly #cache = new Map<string, { generation: number; count: number }>();
  readonly #onNotification = (event: UpstreamNotificationEvent) => {
    if (event.method === 'notifications/tools/list_changed') this.#cache.delete(event.upstream);
  };

  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly timeoutMs: number,
  ) {
    registry.on('notification', this.#onNotification);
  }

  /** The health of every server, in name order. */
  async report(): Promise<{ status: 'ok' | 'degraded'; servers: ServerHealth[] }> {
    const snapshots = this.registry.list();
    const servers = await Promise.all(
      snapshots.map(async (s) => ({
        name: s.name,
        phase: s.phase,
        lastChange: new Date(s.lastChangeAt).toISOString(),
        lastError: s.lastError ?? null,
        tools: await this.#count(s),
      })),
    );
    for (const name of this.#cache.keys())
      if (!snapshots.some((s) => s.name === name)) this.#cache.delete(name);
    return { status: servers.every((s) => s.phase === 'available') ? 'ok' : 'degraded', servers };
  }

  /** Stops listening to the registry. */
  close(): void {
    this.registry.off('notification', this.#onNotification);
  }

  async #count(snapshot: UpstreamSnapshot): Promise<number | null> {
    const cached = this.#cache.get(snapshot.name);
    if (cached !== undefined && cached.generation === snapshot.generation) return cached.count;
    if (snapshot.phase !== 'available' || !(snapshot.capabilities && 'tools' in snapshot.capabilities)) {
      return snapshot.capabilities && !('tools' in snapshot.capabilities) ? 0 : null;
    }
    try {
      let count = 0;
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await this.registry.request(
          snapshot.name,
          { method: 'tools/list', ...(cursor !== undefined && { params: { cursor } }) },
          { timeoutMs: this.timeoutMs },
        );
        count += Array.isArray(result['tools']) ? result['tools'].length : 0;
        cursor = typeof result['nextCursor'] === 'string' ? result['nextCursor'] : undefined;
        if (cursor === undefined) break;
      }
      this.#cache.set(snapshot.name, { generation: snapshot.generation, count });
      return count;
    } catch {
      return null;
    }
  }
}
