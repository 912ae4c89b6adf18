import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { MAX_LIST_PAGES } from './defaults.js';
import type { HubLogger } from './types.js';

/** A tool definition as an upstream listed it: kept verbatim, unknown fields included. */
export type UpstreamTool = Record<string, unknown> & { name: string };

interface Entry {
  /** Bumped by every invalidation (`notifications/tools/list_changed`). */
  epoch: number;
  tools?: UpstreamTool[];
  /** `generation:epoch` the cached tools were fetched under; they are current only while it still matches. */
  toolsKey?: string;
  inflight?: { key: string; promise: Promise<UpstreamTool[]> };
}

/** Options of {@link ToolCache}. */
export interface ToolCacheOptions {
  registry: UpstreamRegistry;
  logger: HubLogger;
  listTimeoutMs: number;
}

/**
 * Per-server cache of `tools/list` results. An entry is current while the server's connection generation
 * (`snapshot.generation`, bumped on every reconnect) and the entry's epoch (bumped on `tools/list_changed`)
 * are those it was fetched under. Concurrent loads under the same key share one upstream walk; pages are
 * followed to the end.
 */
export class ToolCache {
  readonly #opts: ToolCacheOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ToolCacheOptions) {
    this.#opts = options;
  }

  /** The cached tools if current for the server's connection, without any I/O. */
  peek(name: string): UpstreamTool[] | undefined {
    const entry = this.#entries.get(name);
    if (!entry?.tools) return undefined;
    return entry.toolsKey === this.#key(name, entry) ? entry.tools : undefined;
  }

  /** The last tools fetched for the server, current or not (used while a server is not available). */
  last(name: string): UpstreamTool[] | undefined {
    return this.#entries.get(name)?.tools;
  }

  /** The current tools: from the cache, else fetched (joining a fetch already in flight). */
  async get(name: string): Promise<UpstreamTool[]> {
    return this.peek(name) ?? this.#load(name);
  }

  /** Fetches afresh even when the cache is current (a tool the agent names may be newer than the cache). */
  async reload(name: string): Promise<UpstreamTool[]> {
    this.invalidate(name);
    return this.#load(name);
  }

  /** Marks the server's cached tools stale (its `tools/list_changed`). */
  invalidate(name: string): void {
    this.#entry(name).epoch++;
  }

  /** Refreshes in the background so the next `get` answers without a round trip; failures are logged. */
  refresh(name: string): void {
    this.#load(name).catch((err: unknown) => {
      this.#opts.logger.warn(
        { upstream: name, err: errorMessage(err) },
        'hub: refreshing the tool cache failed',
      );
    });
  }

  /** Forgets one server (removed from the layout). */
  drop(name: string): void {
    this.#entries.delete(name);
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
  }

  #entry(name: string): Entry {
    let entry = this.#entries.get(name);
    if (!entry) {
      entry = { epoch: 0 };
      this.#entries.set(name, entry);
    }
    return entry;
  }

  #key(name: string, entry: Entry): string | undefined {
    const snapshot = this.#opts.registry.get(name);
    return snapshot ? `${snapshot.generation}:${entry.epoch}` : undefined;
  }

  #load(name: string): Promise<UpstreamTool[]> {
    const entry = this.#entry(name);
    const key = this.#key(name, entry);
    if (key !== undefined && entry.inflight?.key === key) return entry.inflight.promise;
    const promise = this.#fetchAll(name).then((tools) => {
      if (key !== undefined && this.#entries.get(name) === entry && this.#key(name, entry) === key) {
        entry.tools = tools;
        entry.toolsKey = key;
      }
      return tools;
    });
    if (key !== undefined) {
      entry.inflight = { key, promise };
      const clear = () => {
        if (entry.inflight?.promise === promise) entry.inflight = undefined;
      };
      promise.then(clear, clear);
    }
    return promise;
  }

  async #fetchAll(name: string): Promise<UpstreamTool[]> {
    const { registry, listTimeoutMs, logger } = this.#opts;
    const tools: UpstreamTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const result = await registry.request(
        name,
        { method: 'tools/list', params },
        { timeoutMs: listTimeoutMs },
      );
      const listed = Array.isArray(result['tools']) ? (result['tools'] as unknown[]) : [];
      for (const tool of listed) {
        if (isTool(tool)) tools.push(tool);
        else logger.warn({ upstream: name }, 'hub: ignoring a tools/list entry without a string name');
      }
      const next = result['nextCursor'];
      if (typeof next !== 'string' || next.length === 0) return tools;
      if (seen.has(next)) {
        logger.warn({ upstream: name, cursor: next }, 'hub: tools/list repeated a cursor; stopping');
        return tools;
      }
      seen.add(next);
      cursor = next;
    }
    logger.warn(
      { upstream: name, pages: MAX_LIST_PAGES },
      'hub: tools/list has too many pages; using the first ones',
    );
    return tools;
  }
}

function isTool(value: unknown): value is UpstreamTool {
  return (
    typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string'
  );
}

/** A short message for any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
