/**
 * Where tunnel settings live on the relay: `<dataDir>/tunnel-settings.json` (mode 0600, written atomically by
 * `@mcppipe/store`'s writer), keyed by tunnel id `<subdomain>--<account>`, so they survive reconnects and
 * restarts. Reads are from memory; each `put` replaces the entry's object (the relay caches per object).
 *
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { writeFileAtomic } from '@mcppipe/store';
import type { StoredSettings } from './settingsBody.js';

/** The file name inside the data directory. */
export const SETTINGS_FILE = 'tunnel-settings.json';

interface SettingsFile {
  version: 1;
  tunnels: Record<string, StoredSettings>;
}

/** The stored settings of every tunnel this relay has been told about. */
export class TunnelSettingsStore {
  readonly #path: string;
  readonly #tunnels: Map<string, Readonly<StoredSettings>>;
  #writing: Promise<void> = Promise.resolve();

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
    const path = join(dataDir, SETTINGS_FILE);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return new TunnelSettingsStore(path, {});
    const parsed = JSON.parse(text) as Partial<SettingsFile> | undefined;
    if (parsed?.version !== 1 || typeof parsed.tunnels !== 'object' || parsed.tunnels === null)
      throw new McpPipeError(
        'MCPP_TUNNEL_INVALID_OPTIONS',
        `${path} is not a version-1 tunnel settings file; restore it from a backup or move it aside`,
      );
    return new TunnelSettingsStore(path, parsed.tunnels);
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
   * Stores tunnel `id`'s fields and writes the file (writes are serialized; the memory copy changes first, so
   * the next request already sees it).
   *
   * @param id - `<subdomain>--<account>`
   * @param settings - the stored fields (from `mergeSettings`)
   */
  async put(id: string, settings: StoredSettings): Promise<void> {
    this.#tunnels.set(id, Object.freeze({ ...settings }));
    const text = `${JSON.stringify({ version: 1, tunnels: Object.fromEntries(this.#tunnels) }, null, 2)}\n`;
    const write = this.#writing.then(async () => {
      await mkdir(join(this.#path, '..'), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.#path, text);
    });
    this.#writing = write.catch(() => {});
    await write;
  }
}
