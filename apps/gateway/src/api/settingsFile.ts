/**
 * The tunnel settings file of one node: `<dataDir>/tunnel-settings.json`, `{ "version": 1, "tunnels": { <id>: … } }`
 * keyed by tunnel id `<subdomain>--<account>`, mode 0600, written atomically by `@mcppipe/store`'s writer (its
 * directory is created 0700). `TunnelSettingsStore` holds the entries in memory and calls these to read and write.
 *
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { writeFileAtomic } from '@mcppipe/store';
import type { StoredSettings } from './settingsBody.js';

/** The file name inside the data directory. */
export const SETTINGS_FILE = 'tunnel-settings.json';

interface SettingsFile {
  version: 1;
  tunnels: Record<string, StoredSettings>;
}

/**
 * Reads `<dataDir>/tunnel-settings.json`.
 *
 * @param dataDir - the gateway's data directory
 * @returns the file's path and its entries (none when the file is missing)
 * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` when the file is not a version-1 settings file; the read's own
 *   error other than ENOENT, and `SyntaxError` for a file that is not JSON
 */
export async function readSettingsFile(
  dataDir: string,
): Promise<{ path: string; tunnels: Record<string, StoredSettings> }> {
  const path = join(dataDir, SETTINGS_FILE);
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text === undefined) return { path, tunnels: {} };
  const parsed = JSON.parse(text) as Partial<SettingsFile> | undefined;
  if (parsed?.version !== 1 || typeof parsed.tunnels !== 'object' || parsed.tunnels === null)
    throw new McpPipeError(
      'MCPP_TUNNEL_INVALID_OPTIONS',
      `${path} is not a version-1 tunnel settings file; restore it from a backup or move it aside`,
    );
  return { path, tunnels: parsed.tunnels };
}

/**
 * Serializes the entries as the file's text (taken at once: later changes to `tunnels` do not reach it).
 *
 * @param tunnels - tunnel id → stored fields
 * @returns the file's text, pretty-printed, with a final newline
 */
export function settingsFileText(tunnels: ReadonlyMap<string, Readonly<StoredSettings>>): string {
  return `${JSON.stringify({ version: 1, tunnels: Object.fromEntries(tunnels) }, null, 2)}\n`;
}

/**
 * Writes the file's text atomically, creating its directory (0700) when missing.
 *
 * @param path - the file's path (from {@link readSettingsFile})
 * @param text - from {@link settingsFileText}
 * @throws the file system's error when the directory or the file cannot be written
 */
export async function writeSettingsFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, text);
}
