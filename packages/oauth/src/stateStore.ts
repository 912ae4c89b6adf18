import { chmod, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { removeStrayTempFiles, writeFileAtomic } from '@mcppipe/store';
import type { Logger } from './logger.js';
import { emptyState, parseState, type OAuthState } from './state.js';

/** The file name of the state inside the data directory (DESIGN.md G12). */
export const STATE_FILE = 'state.json';

/** Options of {@link StateStore.open}. */
export interface StateStoreOptions {
  dataDir: string;
  logger: Logger;
  /** Epoch milliseconds; used for the `.corrupt-<timestamp>` name. */
  clock: () => number;
  /** Called when a corrupt file was moved aside. */
  onCorrupt?: (movedTo: string, reason: string) => void;
  /** Replaces the atomic writer (tests inject faults here). */
  write?: (path: string, data: string) => Promise<void>;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The in-memory state plus its single writer. Mutations change `state` synchronously (so checks and
 * updates never interleave); `persist()` then resolves once a write that started after the mutation has
 * reached the disk. Writes are serialized and coalesced: at most one in flight, at most one queued.
 */
export class StateStore {
  readonly state: OAuthState;
  readonly path: string;
  private readonly write: (path: string, data: string) => Promise<void>;
  private readonly logger: Logger;
  private inFlight: Promise<void> | undefined;
  private queued: Deferred | undefined;

  private constructor(state: OAuthState, path: string, options: StateStoreOptions) {
    this.state = state;
    this.path = path;
    this.logger = options.logger;
    this.write = options.write ?? writeFileAtomic;
  }

  /**
   * Reads `<dataDir>/state.json`. A missing file is an empty state; an unreadable or invalid one is moved to
   * `state.json.corrupt-<timestamp>`, logged at error level, and replaced by an empty state (the gateway
   * boots; clients re-register because their `client_id` is now unknown).
   *
   * @param options - where and how
   * @returns the store
   */
  static async open(options: StateStoreOptions): Promise<StateStore> {
    const path = join(options.dataDir, STATE_FILE);
    const strays = await removeStrayTempFiles(path);
    if (strays.length > 0)
      options.logger.warn({ files: strays }, 'removed temp files of an interrupted state write');
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return new StateStore(emptyState(), path, options);
    let reason: string;
    try {
      const parsed = parseState(JSON.parse(text) as unknown);
      if (parsed.ok) {
        await tightenMode(path, options.logger);
        return new StateStore(parsed.state, path, options);
      }
      reason = parsed.reason;
    } catch (err) {
      reason = (err as Error).message;
    }
    const stamp = new Date(options.clock()).toISOString().replace(/[:.]/g, '-');
    const moved = `${path}.corrupt-${stamp}`;
    await rename(path, moved);
    options.logger.error(
      { path, movedTo: moved, reason },
      'STATE FILE CORRUPT: moved aside, starting with empty OAuth state; every client must register and authorize again',
    );
    options.onCorrupt?.(moved, reason);
    return new StateStore(emptyState(), path, options);
  }

  /**
   * Persists the current state. Resolves after a write that began after this call has completed.
   *
   * @throws McpPipeError `MCPP_OAUTH_STATE_WRITE_FAILED` when the write fails (the old file stays intact)
   */
  persist(): Promise<void> {
    const batch = (this.queued ??= deferred());
    if (!this.inFlight) this.startWrite();
    return batch.promise;
  }

  /** Waits until no write is in flight or queued. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => undefined);
  }

  private startWrite(): void {
    const batch = this.queued;
    if (!batch) return;
    this.queued = undefined;
    const data = `${JSON.stringify(this.state, null, 1)}\n`;
    this.inFlight = this.write(this.path, data).then(
      () => batch.resolve(),
      (err: unknown) => {
        this.logger.error(
          { path: this.path, err: (err as Error).message },
          'could not write the OAuth state file',
        );
        batch.reject(
          new McpPipeError(
            'MCPP_OAUTH_STATE_WRITE_FAILED',
            `could not write ${this.path}: ${(err as Error).message}`,
            {
              cause: err,
            },
          ),
        );
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = undefined;
      if (this.queued) this.startWrite();
    });
  }
}

async function tightenMode(path: string, logger: Logger): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    logger.warn(
      { path, mode: (mode & 0o777).toString(8) },
      'state file was readable by others; tightened to 0600',
    );
    await chmod(path, 0o600);
  }
}
