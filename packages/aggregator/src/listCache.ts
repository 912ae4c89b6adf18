/**
 * Per-upstream list cache (DESIGN.md A3): one entry per upstream and list kind, fetched on first use,
 * keyed by the upstream's connection `generation` (a reconnect makes it stale) and invalidated by that
 * upstream's `list_changed`. While an upstream is not available its last list keeps being served, so
 * agents still see its tools and get -32000 with a retry hint when they call one.
 */
import type { UpstreamRegistry, UpstreamSnapshot } from '@mcppipe/supervisor';
import { LIST_SPECS, fetchList } from './listFetch.js';
import { exposeList } from './listItems.js';
import type { ExposedList } from './listItems.js';
import type { Logger, ListKind, UpstreamListReport } from './types.js';

type Obj = Record<string, unknown>;

/** One cached list of one upstream. */
export interface CachedList extends ExposedList {
  upstream: string;
  generation: number;
  report: UpstreamListReport;
}

/** Options of {@link ListCache}. */
export interface ListCacheOptions {
  registry: UpstreamRegistry;
  logger: Logger;
  maxNameLength: number;
  maxPages: number;
  timeoutMs: number;
}

interface Slot {
  entry?: CachedList;
  /** Bumped by invalidation; a fetch started under an older epoch is not trusted as fresh. */
  epoch: number;
  fresh: boolean;
  inflight?: Promise<CachedList | undefined>;
  /** The epoch the in-flight fetch started under. */
  inflightEpoch?: number;
  /** The epoch the current entry was fetched under (an older fetch never replaces a newer entry). */
  entryEpoch: number;
}

const EMPTY: readonly Obj[] = Object.freeze([]);
const ALL_LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/** The per-upstream list cache with merged views. */
export class ListCache {
  private readonly slots = new Map<string, Slot>();
  private readonly merged = new Map<
    ListKind,
    { parts: (CachedList | undefined)[]; items: readonly Obj[]; stamp: number; settled: boolean }
  >();
  /**
   * Bumped by everything that can change a merged list: an invalidation, a stored fetch, a forgotten upstream,
   * and (through {@link touch}) any upstream state or layout change. A merged list built from settled parts
   * under the current stamp is answered as it is, without asking the registry for 2 × N snapshots per request.
   */
  private stamp = 0;
  /** Rewritten names and dropped items already logged, so each is logged once. */
  private readonly logged = new Set<string>();

  constructor(private readonly options: ListCacheOptions) {}

  private slot(upstream: string, kind: ListKind): Slot {
    const key = `${upstream}\u0000${kind}`;
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { epoch: 0, fresh: false, entryEpoch: -1 };
      this.slots.set(key, slot);
    }
    return slot;
  }

  /** The cached entry, without fetching (for diagnostics). */
  peek(upstream: string, kind: ListKind): CachedList | undefined {
    return this.slots.get(`${upstream}\u0000${kind}`)?.entry;
  }

  /**
   * One upstream's list: cached when fresh for the current generation, fetched otherwise (while the
   * upstream is available). Resolves undefined for an unknown upstream or one that never listed.
   * A failed fetch falls back to the previous list, if any.
   */
  async get(upstream: string, kind: ListKind): Promise<CachedList | undefined> {
    const snap = this.options.registry.get(upstream);
    if (snap === undefined) return undefined;
    const slot = this.slot(upstream, kind);
    const entry = slot.entry;
    if (entry !== undefined && slot.fresh && entry.generation === snap.generation) return entry;
    if (snap.phase !== 'available') return entry;
    if (slot.inflight !== undefined && slot.inflightEpoch === slot.epoch) return slot.inflight;
    const inflight = this.refresh(snap, kind, slot).finally(() => {
      if (slot.inflight === inflight) slot.inflight = undefined;
    });
    slot.inflight = inflight;
    slot.inflightEpoch = slot.epoch;
    return inflight;
  }

  /**
   * Fetches lists of an upstream in the background, so that the first agent request finds them cached and
   * dropped or shortened items are logged when the upstream joins or changes, not when an agent first lists.
   */
  warm(upstream: string, kinds: readonly ListKind[] = ALL_LIST_KINDS): void {
    for (const kind of kinds) void this.get(upstream, kind).catch(() => undefined);
  }

  /** Notes that an upstream changed state or the layout changed: merged lists are checked anew. */
  touch(): void {
    this.stamp += 1;
  }

  /** Marks one list of one upstream stale (its `list_changed`). */
  invalidate(upstream: string, kind: ListKind): void {
    this.stamp += 1;
    const slot = this.slots.get(`${upstream}\u0000${kind}`);
    if (slot !== undefined) {
      slot.epoch += 1;
      slot.fresh = false;
    }
  }

  /** Forgets everything about an upstream (removed from the layout). */
  forget(upstream: string): void {
    this.stamp += 1;
    for (const kind of Object.keys(LIST_SPECS) as ListKind[]) this.slots.delete(`${upstream}\u0000${kind}`);
  }

  /** Drops every entry. */
  clear(): void {
    this.stamp += 1;
    this.slots.clear();
    this.merged.clear();
  }

  /**
   * The merged list of every upstream, alphabetical by upstream name then upstream order. Rebuilt only
   * when one of the per-upstream entries changed.
   */
  async mergedList(kind: ListKind): Promise<readonly Obj[]> {
    const cached = this.merged.get(kind);
    if (cached !== undefined && cached.settled && cached.stamp === this.stamp) return cached.items;
    const stamp = this.stamp;
    const snaps = this.options.registry.list().sort((a, b) => (a.name < b.name ? -1 : 1));
    const parts = await Promise.all(snaps.map((s) => this.get(s.name, kind).catch(() => undefined)));
    // settled: nothing would be fetched if asked again now (every list fresh, or its upstream not available)
    const settled = snaps.every((snap) => {
      if (snap.phase !== 'available') return true;
      const slot = this.slots.get(`${snap.name}\u0000${kind}`);
      return slot?.entry !== undefined && slot.fresh && slot.entry.generation === snap.generation;
    });
    if (
      cached !== undefined &&
      cached.parts.length === parts.length &&
      cached.parts.every((p, i) => p === parts[i])
    ) {
      this.merged.set(kind, { ...cached, stamp, settled });
      return cached.items;
    }
    const items: Obj[] = [];
    for (const part of parts) if (part !== undefined) items.push(...part.items);
    const frozen = items.length === 0 ? EMPTY : items;
    this.merged.set(kind, { parts, items: frozen, stamp, settled });
    return frozen;
  }

  private async refresh(snap: UpstreamSnapshot, kind: ListKind, slot: Slot): Promise<CachedList | undefined> {
    const { registry, logger, maxNameLength, maxPages, timeoutMs } = this.options;
    const spec = LIST_SPECS[kind];
    const epoch = slot.epoch;
    const upstream = snap.name;
    const report: UpstreamListReport = { count: 0, pages: 0, fetchedAt: Date.now() };
    let exposed: ExposedList = { items: [], names: new Map(), dropped: [], renamed: [] };
    if (snap.capabilities?.[spec.capability] !== undefined) {
      try {
        const fetched = await fetchList(upstream, spec, { registry, maxPages, timeoutMs });
        exposed = exposeList({ upstream, kind, maxNameLength }, fetched.items);
        exposed.dropped.unshift(...fetched.dropped);
        report.pages = fetched.pages;
        if (fetched.stopped !== undefined) report.stopped = fetched.stopped;
        if (fetched.methodNotFound) report.methodNotFound = true;
        if (fetched.error !== undefined) report.error = fetched.error;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        logger.warn(
          { upstream, list: spec.method, err: message },
          'could not list upstream; serving its previous list',
        );
        if (slot.entry !== undefined) slot.entry.report.error = message;
        return slot.entry;
      }
    }
    report.count = exposed.items.length;
    const entry: CachedList = { ...exposed, upstream, generation: snap.generation, report };
    this.logChanges(entry, kind);
    if (epoch < slot.entryEpoch) return slot.entry;
    this.stamp += 1;
    slot.entry = entry;
    slot.entryEpoch = epoch;
    slot.fresh = slot.epoch === epoch;
    return entry;
  }

  private logChanges(entry: CachedList, kind: ListKind): void {
    const { logger } = this.options;
    const upstream = entry.upstream;
    const once = (key: string): boolean => {
      if (this.logged.has(key)) return false;
      this.logged.add(key);
      return true;
    };
    for (const d of entry.dropped) {
      if (once(`d\u0000${upstream}\u0000${kind}\u0000${d.name ?? `#${d.index}`}\u0000${d.reason}`)) {
        logger.warn(
          { upstream, list: LIST_SPECS[kind].method, item: d.name, index: d.index, reason: d.reason },
          `dropped ${d.name ?? `item #${d.index}`} of upstream ${upstream}`,
        );
      }
    }
    for (const r of entry.renamed) {
      if (once(`r\u0000${upstream}\u0000${kind}\u0000${r.original}`)) {
        logger.info(
          { upstream, original: r.original, exposed: r.exposed, reason: r.reason },
          r.reason === 'shortened'
            ? `shortened ${r.original} of upstream ${upstream} to ${r.exposed}`
            : `exposed ${JSON.stringify(r.original)} of upstream ${upstream} as ${r.exposed} (model APIs accept only [A-Za-z0-9_-] in names)`,
        );
      }
    }
    const stopped = entry.report.stopped;
    if (stopped !== undefined && once(`s\u0000${upstream}\u0000${kind}\u0000${stopped}`)) {
      logger.warn(
        { upstream, list: LIST_SPECS[kind].method, stopped, pages: entry.report.pages },
        `stopped reading ${LIST_SPECS[kind].method} of upstream ${upstream}: ${stopped.replace(/_/g, ' ')}`,
      );
    }
  }
}
