/**
 * Hot reload (DESIGN.md G10): `fs.watch` on the parent directory plus `fs.watchFile` polling, into
 * one debounce. The poller is what sees edits to a single bind-mounted file, where the container's
 * directory never changes.
 */
import type { FSWatcher, Stats } from 'node:fs';
import { unwatchFile, watch, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { DEFAULT_DEBOUNCE_MS, DEFAULT_POLL_INTERVAL_MS } from './defaults.js';
import type { LayoutDiff } from './diff.js';
import { deepEqual, diffLayouts } from './diff.js';
import { parseMcpJson } from './mcpJson.js';
import { readConfigText, stripBom } from './readFile.js';
import type { Layout, Logger, UpstreamConfig } from './types.js';
import { parseUpstreamsToml } from './upstreamsFile.js';

/** Anything with upstreams can be watched and diffed. */
export interface WatchedConfig {
  /** The upstreams, diffed by name. */
  readonly upstreams: readonly UpstreamConfig[];
}

/** Options of {@link watchConfig}. */
export interface WatchConfigOptions<T extends WatchedConfig = Layout> {
  /**
   * Turns file text into a config; throw to reject it (the previous config stays live).
   * Default: `parseUpstreamsToml` for `*.toml`, otherwise `parseMcpJson`, warnings to `logger`.
   */
  parse?: (text: string, path: string) => T;
  /**
   * The running config. Default: the file is read and parsed once at start (and must be valid). When
   * given, the file is checked once right after start, so an edit made between loading and watching is
   * reported like any other.
   */
  initial?: T;
  /** Where reloads, rejected files and handler failures are logged. Default: a no-op logger. */
  logger?: Logger;
  /** `fs.watchFile` poll interval, in ms. Default 3000. */
  pollIntervalMs?: number;
  /** Quiet time after the last event before the file is read, in ms. Default 300. */
  debounceMs?: number;
  /** Whether to also `fs.watch` the parent directory. Default true; false polls only. */
  watchDirectory?: boolean;
}

/** What {@link watchConfig} hands to its callback when the config changed. */
export interface ConfigChange<T extends WatchedConfig = Layout> {
  /** The config that was live until now. */
  previous: T;
  /** The config that is live from now on (also `watcher.current`). */
  next: T;
  /** What changed between them, by upstream. */
  diff: LayoutDiff;
}

/** A running watcher. Close it (or `await using` it) to stop watching. */
export interface ConfigWatcher<T extends WatchedConfig = Layout> extends AsyncDisposable {
  /** The live config: the last one that parsed. */
  readonly current: T;
  /** Stops watching and waits for an in-flight reload (and its callback) to finish. Idempotent. */
  close(): Promise<void>;
}

const noopLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function defaultParse(logger: Logger): (text: string, path: string) => Layout {
  return (text, path) =>
    path.toLowerCase().endsWith('.toml')
      ? parseUpstreamsToml(text, path, { logger })
      : parseMcpJson(text, path, { logger });
}

function checkMs(name: string, value: number, min: number): number {
  if (!Number.isFinite(value) || value < min)
    throw new TypeError(`watchConfig: ${name} must be a number of ms >= ${min}`);
  return value;
}

/**
 * Watches a config file and reports each effective change. Events from `fs.watch` (on the parent
 * directory: the file's own name, or a Kubernetes `..data` swap) and from `fs.watchFile` polling are
 * debounced together; then the file is read and, if its text changed, parsed and compared with the
 * live config. A file that cannot be read or parsed is logged and ignored: the previous config stays
 * live. Callbacks never overlap: the next reload waits for the previous callback.
 *
 * @param path - the config file (`mcp.json` or an upstreams `.toml`)
 * @param onChange - called with the previous and next config and their diff; errors it throws are logged
 * @param options - see {@link WatchConfigOptions}
 * @returns the watcher, once watching has started and the initial config is known
 * @throws TypeError for a bad `pollIntervalMs`/`debounceMs`; McpPipeError `MCPP_CFG_READ_FAILED`,
 *   `MCPP_CFG_SYNTAX` or `MCPP_CFG_INVALID` when `initial` is absent and the file is not valid
 * @example Gateway hot reload
 * ```ts
 * await using watcher = await watchConfig('/config/mcp.json', async ({ diff }) => {
 *   for (const u of diff.removed) await supervisor.remove(u.name);
 *   for (const c of diff.changed) await supervisor.replace(c.next);
 *   for (const u of diff.added) await supervisor.add(u);
 * }, { logger });
 * ```
 */
export async function watchConfig<T extends WatchedConfig = Layout>(
  path: string,
  onChange: (change: ConfigChange<T>) => void | Promise<void>,
  options: WatchConfigOptions<T> = {},
): Promise<ConfigWatcher<T>> {
  const logger = options.logger ?? noopLogger;
  const pollIntervalMs = checkMs('pollIntervalMs', options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 1);
  const debounceMs = checkMs('debounceMs', options.debounceMs ?? DEFAULT_DEBOUNCE_MS, 0);
  const parse = options.parse ?? (defaultParse(logger) as unknown as (text: string, path: string) => T);
  const file = resolve(path);
  const name = basename(file);

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let lastText: string | undefined;
  let unreadable = false;
  let current = options.initial as T;

  const schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      chain = chain.then(reload);
    }, debounceMs);
  };

  const reload = async (): Promise<void> => {
    if (closed) return;
    let text: string;
    try {
      text = stripBom(await readFile(file, 'utf8'));
    } catch (err) {
      if (!unreadable)
        logger.warn({ path, err }, 'config file cannot be read; keeping the previous configuration');
      unreadable = true;
      return;
    }
    unreadable = false;
    if (text === lastText) return;
    lastText = text;
    let next: T;
    try {
      next = parse(text, path);
    } catch (err) {
      logger.error({ path, err }, 'config file is invalid; keeping the previous configuration');
      return;
    }
    if (deepEqual(next, current)) {
      logger.debug({ path }, 'config file rewritten without changes');
      return;
    }
    const previous = current;
    const diff = diffLayouts(previous, next);
    current = next;
    logger.info(
      {
        path,
        added: diff.added.map((u) => u.name),
        removed: diff.removed.map((u) => u.name),
        changed: diff.changed.map((c) => c.name),
      },
      'config reloaded',
    );
    try {
      await onChange({ previous, next, diff });
    } catch (err) {
      logger.error({ path, err }, 'config change handler failed');
    }
  };

  const onPoll = (curr: Stats, prev: Stats): void => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.size !== prev.size || curr.ino !== prev.ino) schedule();
  };
  watchFile(file, { interval: pollIntervalMs }, onPoll);
  let dirWatcher: FSWatcher | undefined;
  if (options.watchDirectory ?? true) {
    try {
      dirWatcher = watch(dirname(file), (_event, filename) => {
        if (filename === null || filename === name || filename.startsWith('..')) schedule();
      });
      dirWatcher.on('error', (err) => logger.warn({ path, err }, 'directory watch failed; polling only'));
    } catch (err) {
      logger.warn({ path, err }, 'cannot watch the config directory; polling only');
    }
  }

  const close = async (): Promise<void> => {
    if (!closed) {
      closed = true;
      clearTimeout(timer);
      unwatchFile(file, onPoll);
      dirWatcher?.close();
    }
    await chain;
  };

  // Reading the file once before returning also lets the poller take its baseline stat first (it was
  // queued earlier), so a write right after this resolves is always seen.
  if (options.initial === undefined) {
    try {
      lastText = await readConfigText(file);
      current = parse(lastText, path);
    } catch (err) {
      await close();
      throw err;
    }
  } else {
    await readFile(file).catch(() => undefined);
    // Reconcile an edit made between loading `initial` and watching, through the debounced path.
    schedule();
  }

  return {
    get current() {
      return current;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
