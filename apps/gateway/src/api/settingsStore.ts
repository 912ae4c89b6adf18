/**
 * Where tunnel settings live on the relay: `<dataDir>/tunnel-settings.json` (read and written by `settingsFile.ts`),
 * keyed by tunnel id `<subdomain>--<account>`, so they survive reconnects and restarts. Reads are from memory; each
 * `put` replaces the entry's object (the relay caches per object).
 * Many nodes (S1, `--redis`): the settings live in the store's `tunnelSettings` collection, shared by every node; a
 * `put` on any node is published on the `tunnel-settings` channel and every node reloads that entry at once (and
 * all of them every {@link SHARED_SETTINGS_POLL_MS}, for messages lost while Redis was away), so the owner's auth
 * mode, allowlist and policies hold whichever node a request enters or a tunnel is held by.
 *
 * @module
 */
import type { Collection, Store } from '@mcppipe/store';
import type { StoredSettings } from './settingsBody.js';
import { readSettingsFile, settingsFileText, writeSettingsFile } from './settingsFile.js';

/** The shared collection (many nodes). */
export const SETTINGS_COLLECTION = 'tunnelSettings';
/** The channel a `put` is announced on (many nodes). */
export const SETTINGS_CHANNEL = 'tunnel-settings';
/** How often a node re-reads every shared entry, ms (a missed announcement is caught up by then). */
export const SHARED_SETTINGS_POLL_MS = 2_000;

/** The store of many nodes, as the settings use it (`@mcppipe/store`'s `Store`). */
export type SharedSettingsStore = Pick<Store, 'collection' | 'publish' | 'subscribe'>;

/** The stored settings of every tunnel this relay has been told about. */
export class TunnelSettingsStore {
  readonly #path: string;
  readonly #tunnels: Map<string, Readonly<StoredSettings>>;
  #writing: Promise<void> = Promise.resolve();
  #shared: { store: SharedSettingsStore; entries: Collection<StoredSettings> } | undefined;
  #stop: (() => void) | undefined;
  readonly #listeners = new Set<(id: string) => void>();

  private constructor(path: string, tunnels: Record<string, StoredSettings>) {
    this.#path = path;
    this.#tunnels = new Map(Object.entries(tunnels));
  }

  /**
   * Reads `<dataDir>/tunnel-settings.json` (missing: nothing stored).
   *
   * @param dataDir - the gateway's data directory
   * @returns the store
   * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` when the file is not a settings file
   */
  static async open(dataDir: string): Promise<TunnelSettingsStore> {
    const { path, tunnels } = await readSettingsFile(dataDir);
    return new TunnelSettingsStore(path, tunnels);
  }

  /**
   * Keeps the settings in the store shared by every node instead of the file: entries of this node's file that
   * the store lacks are copied there first (a node that ran alone before), then the store's entries are loaded,
   * and the announcements of other nodes' `put`s are followed.
   *
   * @param store - the shared store
   * @param onError - a failed background reload (the entries in memory stay until the next one)
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` when the store cannot be read now
   */
  async share(store: SharedSettingsStore, onError: (err: unknown) => void): Promise<void> {
    const entries = store.collection<StoredSettings>(SETTINGS_COLLECTION);
    for (const [id, settings] of this.#tunnels)
      await entries.compareAndSwap(id, { expected: undefined, next: { ...settings } });
    this.#shared = { store, entries };
    await this.#reloadAll();
    const off = await store.subscribe(SETTINGS_CHANNEL, (id) => {
      entries.get(id).then((v) => this.#replace(id, v), onError);
    });
    const timer = setInterval(() => this.#reloadAll().catch(onError), SHARED_SETTINGS_POLL_MS);
    timer.unref();
    this.#stop = () => {
      clearInterval(timer);
      void off().catch(() => {});
    };
  }

  /** Stops following the shared store (many nodes); a no-op on one node. */
  close(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  async #reloadAll(): Promise<void> {
    const all = await this.#shared!.entries.entries();
    const seen = new Set<string>();
    for (const [id, v] of all) {
      seen.add(id);
      this.#replace(id, v);
    }
    for (const id of [...this.#tunnels.keys()]) if (!seen.has(id)) this.#tunnels.delete(id);
  }

  // a new object only when the entry changed: the relay's compiled gate is cached per object
  #replace(id: string, v: StoredSettings | undefined): void {
    if (v === undefined) return void this.#tunnels.delete(id);
    const held = this.#tunnels.get(id);
    if (held !== undefined && JSON.stringify(held) === JSON.stringify(v)) return;
    this.#tunnels.set(id, Object.freeze(v));
    this.#changed(id);
  }

  #changed(id: string): void {
    for (const fn of this.#listeners) fn(id);
  }

  /**
   * Calls `fn` with a tunnel's id each time its stored settings change: a `put` here or, many nodes, another node's
   * (when this node reloads the entry).
   *
   * @param fn - called synchronously, after the new value is readable with {@link TunnelSettingsStore.get}
   */
  onChange(fn: (id: string) => void): void {
    this.#listeners.add(fn);
  }

  /** @returns the stored fields of tunnel `id`, or undefined (never mutate it) */
  get(id: string): Readonly<StoredSettings> | undefined {
    return this.#tunnels.get(id);
  }

  /** @returns whether tunnel `id` has stored settings */
  has(id: string): boolean {
    return this.#tunnels.has(id);
  }

  /**
   * Stores tunnel `id`'s fields and writes the file, or (many nodes) the shared entry, announced to every node
   * (writes are serialized; the memory copy changes first, so the next request already sees it).
   *
   * @param id - `<subdomain>--<account>`
   * @param settings - the stored fields (from `mergeSettings`)
   */
  async put(id: string, settings: StoredSettings): Promise<void> {
    this.#tunnels.set(id, Object.freeze({ ...settings }));
    this.#changed(id);
    const shared = this.#shared;
    if (shared !== undefined) {
      await shared.entries.set(id, { ...settings });
      await shared.store.publish(SETTINGS_CHANNEL, id);
      return;
    }
    const text = settingsFileText(this.#tunnels);
    const write = this.#writing.then(() => writeSettingsFile(this.#path, text));
    this.#writing = write.catch(() => {});
    await write;
  }
}
