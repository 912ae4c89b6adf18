import { chmod, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { removeStrayTempFiles, writeFileAtomic } from './atomicFile.js';
import { checkTtl, collectionName, decideCas, type Doc, sameJson, toJson } from './collectionUtil.js';
import { DEFAULT_COLLECTIONS, STATE_FILE } from './defaults.js';
import { storeError } from './errors.js';
import { Subscribers } from './pubsub.js';
import type { Change, Collection, Store, StoreLogger } from './types.js';

/** Options of {@link openFileStore}. */
export interface FileStoreOptions {
  /** The data directory; the file is `<dataDir>/<fileName>`. */
  dataDir: string;
  /** Default `state.json` (G12). */
  fileName?: string;
  /** Collections a new file starts with (as empty objects). Default: today's `state.json` (clients, grants, families, revokedTokens). */
  collections?: readonly string[];
  /** Checks a parsed file; a returned string is the reason it is corrupt (e.g. `@mcppipe/oauth`'s `parseState`). */
  validate?: (doc: unknown) => string | undefined;
  /** Epoch milliseconds (TTL expiry, the `.corrupt-<timestamp>` name). Default `Date.now`. */
  clock?: () => number;
  logger?: StoreLogger;
  /** Called when a corrupt file was moved aside. */
  onCorrupt?: (movedTo: string, reason: string) => void;
  /** Replaces the atomic writer (tests inject faults here). */
  write?: (path: string, data: string) => Promise<void>;
}

interface Ephemeral {
  value: unknown;
  expiresAt: number;
}

/**
 * Opens the JSON-file store: the whole state in one file, byte-compatible with today's `state.json`
 * (`{"version":1,"clients":{…},…}`, one-space indent, mode 0600), written atomically (temp file, fsync,
 * rename). A missing file is an empty state; an unreadable or invalid one moves to `<file>.corrupt-<timestamp>`
 * and the store starts empty (G12). Mutations apply in memory synchronously (so `update` is atomic in this
 * process) and resolve once a write that began after them reached the disk; writes are serialized and
 * coalesced. TTL entries live in memory only. Pub/sub is in-process.
 *
 * @param options - where and how
 * @returns the store
 * @throws the read error when the file exists but cannot be read for another reason than being corrupt
 *
 * @example One node
 * ```ts
 * await using store = await openFileStore({ dataDir: '/data' });
 * await store.collection<{ n: number }>('counters').update('a', (c) => ({ op: 'set', value: { n: (c?.n ?? 0) + 1 } }));
 * ```
 */
export async function openFileStore(options: FileStoreOptions): Promise<Store> {
  const path = join(options.dataDir, options.fileName ?? STATE_FILE);
  const logger = options.logger;
  const strays = await removeStrayTempFiles(path);
  if (strays.length > 0) logger?.warn({ files: strays }, 'removed temp files of an interrupted state write');
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const empty = (): Doc => {
    const doc: Doc = { version: 1 };
    for (const name of options.collections ?? DEFAULT_COLLECTIONS) doc[collectionName(name)] = {};
    return doc;
  };
  if (text === undefined) return new FileStore(empty(), path, options);
  let reason: string | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    reason = checkDoc(parsed) ?? options.validate?.(parsed);
    if (reason === undefined) {
      await tightenMode(path, logger);
      return new FileStore(parsed as Doc, path, options);
    }
  } catch (err) {
    reason = (err as Error).message;
  }
  const stamp = new Date((options.clock ?? Date.now)()).toISOString().replace(/[:.]/g, '-');
  const moved = `${path}.corrupt-${stamp}`;
  await rename(path, moved);
  logger?.error(
    { path, movedTo: moved, reason },
    'STATE FILE CORRUPT: moved aside, starting with an empty state; every client must register and authorize again',
  );
  options.onCorrupt?.(moved, reason);
  return new FileStore(empty(), path, options);
}

function checkDoc(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const doc = v as Record<string, unknown>;
  if (doc['version'] !== 1) return 'not a version-1 state object';
  for (const [k, c] of Object.entries(doc)) {
    if (k !== 'version' && (typeof c !== 'object' || c === null || Array.isArray(c)))
      return `${k} is not an object`;
  }
  return undefined;
}

async function tightenMode(path: string, logger: StoreLogger | undefined): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    logger?.warn(
      { path, mode: (mode & 0o777).toString(8) },
      'state file was readable by others; tightened to 0600',
    );
    await chmod(path, 0o600);
  }
}

class FileStore implements Store {
  readonly kind = 'file' as const;
  readonly #doc: Doc;
  readonly #path: string;
  readonly #write: (path: string, data: string) => Promise<void>;
  readonly #clock: () => number;
  readonly #logger: StoreLogger | undefined;
  readonly #ephemeral = new Map<string, Map<string, Ephemeral>>();
  readonly #subs: Subscribers;
  #inFlight: Promise<void> | undefined;
  #queued: PromiseWithResolversLike | undefined;
  #closed = false;

  constructor(doc: Doc, path: string, options: FileStoreOptions) {
    this.#doc = doc;
    this.#path = path;
    this.#write = options.write ?? writeFileAtomic;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
    this.#subs = new Subscribers(options.logger);
  }

  collection<T>(name: string): Collection<T> {
    const c = collectionName(name);
    const read = (key: string): T | undefined => this.#read(c, key) as T | undefined;
    return {
      get: async (key) => {
        this.#open();
        const v = read(key);
        return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as T);
      },
      set: async (key, value, options) => this.#apply(c, key, { op: 'set', value, ...options }),
      delete: async (key) => {
        const had = read(key) !== undefined;
        await this.#apply(c, key, { op: 'delete' });
        return had;
      },
      entries: async () => {
        this.#open();
        const out = new Map<string, T>();
        for (const [k, v] of Object.entries((this.#doc[c] as Record<string, unknown> | undefined) ?? {}))
          out.set(k, v as T);
        const now = this.#clock();
        for (const [k, e] of this.#ephemeral.get(c) ?? []) if (e.expiresAt > now) out.set(k, e.value as T);
        return [...out].map(([k, v]) => [k, JSON.parse(JSON.stringify(v)) as T]);
      },
      compareAndSwap: async (key, { expected, next, ttlMs }) => {
        this.#open();
        const change = decideCas(sameJson(read(key), expected), next, ttlMs);
        if (change === undefined) return false;
        await this.#apply(c, key, change);
        return true;
      },
      update: async <R>(key: string, fn: (current: T | undefined) => Change<T, R>) => {
        this.#open();
        const cur = read(key);
        const change = fn(cur === undefined ? undefined : (JSON.parse(JSON.stringify(cur)) as T));
        if (change.op !== 'keep') await this.#apply(c, key, change);
        return change.result;
      },
    };
  }

  #open(): void {
    if (this.#closed)
      throw storeError('MCPP_STORE_CLOSED', 'the store was closed; no more operations are accepted');
  }

  #read(c: string, key: string): unknown {
    const e = this.#ephemeral.get(c)?.get(key);
    if (e !== undefined) {
      if (e.expiresAt > this.#clock()) return e.value;
      this.#ephemeral.get(c)?.delete(key);
    }
    const coll = this.#doc[c] as Record<string, unknown> | undefined;
    return coll && Object.hasOwn(coll, key) ? coll[key] : undefined;
  }

  /** Applies a change synchronously, then waits for the disk when the persisted part changed. */
  #apply(c: string, key: string, change: Change<unknown, unknown>): Promise<void> {
    this.#open();
    const eph = this.#ephemeral.get(c);
    const coll = (this.#doc[c] ??= {}) as Record<string, unknown>;
    const persisted = Object.hasOwn(coll, key);
    eph?.delete(key);
    if (change.op === 'set') checkTtl(change.ttlMs);
    if (change.op === 'set' && change.ttlMs !== undefined) {
      const value = JSON.parse(toJson(change.value)) as unknown;
      if (!this.#ephemeral.has(c)) this.#ephemeral.set(c, new Map());
      this.#ephemeral.get(c)?.set(key, { value, expiresAt: this.#clock() + change.ttlMs });
      if (!persisted) return Promise.resolve();
      delete coll[key];
    } else if (change.op === 'set') {
      coll[key] = JSON.parse(toJson(change.value)) as unknown;
    } else if (change.op === 'delete') {
      if (!persisted) return Promise.resolve();
      delete coll[key];
    }
    return this.#persist();
  }

  #persist(): Promise<void> {
    const batch = (this.#queued ??= withResolvers());
    if (!this.#inFlight) this.#startWrite();
    return batch.promise;
  }

  #startWrite(): void {
    const batch = this.#queued;
    if (!batch) return;
    this.#queued = undefined;
    const data = `${JSON.stringify(this.#doc, null, 1)}\n`;
    this.#inFlight = this.#write(this.#path, data).then(
      () => batch.resolve(),
      (err: unknown) => {
        this.#logger?.error(
          { path: this.#path, err: (err as Error).message },
          'could not write the state file',
        );
        batch.reject(
          storeError(
            'MCPP_STORE_WRITE_FAILED',
            `could not write ${this.#path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); the old file is intact: free disk space or fix the data directory's permissions`,
            err,
          ),
        );
      },
    );
    void this.#inFlight.finally(() => {
      this.#inFlight = undefined;
      if (this.#queued) this.#startWrite();
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#open();
    this.#subs.deliver(channel, message);
  }

  async subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>> {
    this.#open();
    this.#subs.add(channel, fn);
    return async () => void this.#subs.remove(channel, fn);
  }

  async ping(): Promise<void> {
    this.#open();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    while (this.#inFlight) await this.#inFlight.catch(() => undefined);
    this.#closed = true;
    this.#subs.clear();
    this.#ephemeral.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

interface PromiseWithResolversLike {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function withResolvers(): PromiseWithResolversLike {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
