import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@mcppipe/store';

/**
 * Where webhook subscriptions and tool pins are kept: a tiny key → JSON document interface, so a shared store
 * (`@mcppipe/store`, Redis) can replace the file one (S1). Keys are short `[a-z0-9._-]` names.
 */
export interface EventsStore {
  /** @returns the document saved under `key`, or undefined */
  read(key: string): Promise<unknown>;
  /**
   * Replaces the document under `key`.
   *
   * @param secret - the document holds secrets (webhook signing secrets): keep it owner-readable only
   */
  write(key: string, value: unknown, options?: { secret?: boolean }): Promise<void>;
  /**
   * Many nodes (S1): calls `fn` with the key of each document written by any node, so a scope re-reads what another
   * node changed (webhooks registered there, pins accepted there). Absent on one node: nothing else writes.
   *
   * @returns stops watching
   */
  watch?(fn: (key: string) => void): Promise<() => Promise<void>>;
}

/** A store in memory (tests, or a gateway without a data directory). */
export class MemoryEventsStore implements EventsStore {
  readonly #docs = new Map<string, string>();

  /** @inheritdoc */
  async read(key: string): Promise<unknown> {
    const doc = this.#docs.get(key);
    return doc === undefined ? undefined : JSON.parse(doc);
  }

  /** @inheritdoc */
  async write(key: string, value: unknown): Promise<void> {
    this.#docs.set(key, JSON.stringify(value));
  }
}

const KEY = /^[a-z0-9][a-z0-9._-]{0,99}$/;

/**
 * A store of one JSON file per key in a directory (`<dir>/<key>.json`). Writes go to a temporary file that is
 * renamed over the old one (atomic on one file system); files holding secrets are created with mode 0600, the
 * directory with 0700. Writes of one store are serialised.
 */
export class JsonFileEventsStore implements EventsStore {
  readonly #dir: string;
  #chain: Promise<void> = Promise.resolve();

  /** @param dir - the directory (created on first write) */
  constructor(dir: string) {
    this.#dir = dir;
  }

  #path(key: string): string {
    if (!KEY.test(key)) throw new TypeError(`JsonFileEventsStore: invalid key ${JSON.stringify(key)}`);
    return join(this.#dir, `${key}.json`);
  }

  /** @inheritdoc */
  async read(key: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.#path(key), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** @inheritdoc */
  write(key: string, value: unknown, options: { secret?: boolean } = {}): Promise<void> {
    let path: string;
    try {
      path = this.#path(key);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const run = async () => {
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`); // mode 0600
      if (!options.secret) await chmod(path, 0o644);
    };
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => {});
    return next;
  }
}
