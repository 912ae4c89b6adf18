/**
 * Relay accounts and their API keys (DESIGN.md T1), stored in `<dataDir>/accounts.json` next to `state.json`
 * with the same atomic writer (temp file, fsync, rename; mode 0600). Passwords are stored as bcrypt hashes,
 * keys as SHA-256 digests only. The file has its own name because two kinds of process write it: the
 * `mcppipe-gateway accounts|keys` commands change it, and a running gateway re-reads it ({@link AccountStore.watch})
 * — the gateway never writes `accounts.json` while serving, so a command's change is never overwritten.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { FSWatcher } from 'node:fs';
import { unwatchFile, watch, watchFile } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { verify } from '@node-rs/bcrypt';
import { McpPipeError } from '@mcppipe/errors';
import { isValidUpstreamName } from '@mcppipe/namespace';
import { writeFileAtomic } from '@mcppipe/store';
import type { Collection, Store } from '@mcppipe/store';
import { hashPassword } from './password.js';
import { randomSecret, sha256 } from './secrets.js';

/** The file name of the accounts inside the data directory. */
export const ACCOUNTS_FILE = 'accounts.json';

/** The store collection, entry and pub/sub channel of the accounts on a shared store (S1). */
const SHARED = { collection: 'accounts', key: 'all', channel: 'accounts' } as const;
/** How often a node re-reads shared accounts besides pub/sub (a message lost while Redis restarted). */
const SHARED_POLL_MS = 1_000;

/** Prefix of every API key (recognisable in logs and secret scanners). */
const KEY_PREFIX = 'mcpp_';
const MAX_KEY_INPUT = 256;

/** One relay account: a slug and a bcrypt password hash. */
export interface AccountRecord {
  slug: string;
  passwordHash: string;
  /** Epoch ms. */
  createdAt: number;
}

/** One API key: its id, owner, optional name and SHA-256 (hex); the key itself is never stored. */
export interface ApiKeyRecord {
  id: string;
  account: string;
  name?: string;
  sha256: string;
  /** Epoch ms. */
  createdAt: number;
}

interface AccountsFile {
  version: 1;
  accounts: Record<string, AccountRecord>;
  keys: Record<string, ApiKeyRecord>;
}

const invalid = (message: string) => new McpPipeError('MCPP_OAUTH_ACCOUNT_INVALID', message);
const notFound = (message: string) => new McpPipeError('MCPP_OAUTH_ACCOUNT_NOT_FOUND', message);

function parseFile(text: string, path: string): AccountsFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const v = value as Partial<AccountsFile> | undefined;
  if (!v || v.version !== 1 || typeof v.accounts !== 'object' || typeof v.keys !== 'object') {
    throw invalid(`${path} is not a version-1 accounts file; restore it from a backup or move it aside`);
  }
  return v as AccountsFile;
}

/**
 * The accounts and keys of a relay. Reads are from memory; every change re-reads the file first and writes it
 * atomically, so several `mcppipe-gateway accounts|keys` invocations and a running gateway share one truth.
 */
export class AccountStore {
  readonly path: string;
  #data: AccountsFile = { version: 1, accounts: {}, keys: {} };
  #digests: { id: string; account: string; digest: Buffer }[] = [];
  readonly #shared: { store: Store; entries: Collection<AccountsFile> } | undefined;

  private constructor(
    readonly dataDir: string,
    shared?: Store,
  ) {
    this.path = join(dataDir, ACCOUNTS_FILE);
    this.#shared = shared && { store: shared, entries: shared.collection<AccountsFile>(SHARED.collection) };
  }

  /**
   * Opens (reads) `<dataDir>/accounts.json`; a missing file is no accounts. With `options.store` (the Redis store
   * of many nodes, S1) the accounts live there instead, as one entry changed atomically; `accounts.json` is
   * neither read nor written.
   *
   * @param dataDir - the gateway's data directory (created 0700 when missing)
   * @param options - `store`: a shared store (the caller closes it)
   * @returns the store
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_INVALID` when the file is not an accounts file;
   *   `MCPP_STORE_UNAVAILABLE` when the shared store cannot be reached
   */
  static async open(dataDir: string, options: { store?: Store | undefined } = {}): Promise<AccountStore> {
    const store = new AccountStore(dataDir, options.store?.kind === 'redis' ? options.store : undefined);
    await store.reload();
    return store;
  }

  async #readText(): Promise<string | undefined> {
    if (this.#shared) {
      const value = await this.#shared.entries.get(SHARED.key);
      return value === undefined ? undefined : JSON.stringify(value);
    }
    try {
      return await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return undefined;
    }
  }

  /**
   * Re-reads the file.
   *
   * @returns whether anything changed
   */
  async reload(): Promise<boolean> {
    const text = await this.#readText();
    const next =
      text === undefined ? { version: 1 as const, accounts: {}, keys: {} } : parseFile(text, this.path);
    const changed = JSON.stringify(next) !== JSON.stringify(this.#data);
    this.#data = next;
    this.#digests = Object.values(next.keys).map((k) => ({
      id: k.id,
      account: k.account,
      digest: Buffer.from(k.sha256, 'hex'),
    }));
    return changed;
  }

  async #change(mutate: (data: AccountsFile) => void): Promise<void> {
    if (this.#shared) {
      // atomic across nodes; `mutate` is pure (ids and hashes are made before), so a retry is safe
      await this.#shared.entries.update(SHARED.key, (current) => {
        const data: AccountsFile = structuredClone(current ?? { version: 1, accounts: {}, keys: {} });
        mutate(data);
        return { op: 'set', value: data };
      });
      await this.#shared.store.publish(SHARED.channel, 'changed');
      await this.reload();
      return;
    }
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    await this.reload();
    mutate(this.#data);
    await writeFileAtomic(this.path, `${JSON.stringify(this.#data, null, 1)}\n`);
    await this.reload();
  }

  /**
   * Adds an account.
   *
   * @param slug - `^[a-z][a-z0-9_-]{0,31}$`, no `__`, no trailing `_` (the upstream-name rule, T1)
   * @param password - 1–72 bytes; stored as a bcrypt hash only
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_INVALID` for a bad slug, an existing account or a bad password
   */
  async addAccount(slug: string, password: string): Promise<void> {
    if (!isValidUpstreamName(slug))
      throw invalid(`account "${slug}" is invalid: use ^[a-z][a-z0-9_-]{0,31}$, no "__", no trailing "_"`);
    let passwordHash: string;
    try {
      passwordHash = await hashPassword(password);
    } catch {
      throw invalid('the password must be 1 to 72 bytes long');
    }
    await this.#change((d) => {
      if (Object.hasOwn(d.accounts, slug)) throw invalid(`account "${slug}" already exists`);
      d.accounts[slug] = { slug, passwordHash, createdAt: Date.now() };
    });
  }

  /**
   * Removes an account and every key of it.
   *
   * @param slug - the account
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_NOT_FOUND`
   */
  async removeAccount(slug: string): Promise<void> {
    await this.#change((d) => {
      if (!Object.hasOwn(d.accounts, slug)) throw notFound(`no account "${slug}": see \`accounts list\``);
      delete d.accounts[slug];
      for (const [id, k] of Object.entries(d.keys)) if (k.account === slug) delete d.keys[id];
    });
  }

  /** @returns the accounts (slugs and creation times; no hashes) */
  listAccounts(): { slug: string; createdAt: number }[] {
    return Object.values(this.#data.accounts).map(({ slug, createdAt }) => ({ slug, createdAt }));
  }

  /**
   * @param slug - an account slug
   * @returns whether the account exists
   */
  hasAccount(slug: string): boolean {
    return Object.hasOwn(this.#data.accounts, slug);
  }

  /**
   * @param slug - an account slug
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_NOT_FOUND` naming `accounts list` when the account does not exist
   */
  requireAccount(slug: string): void {
    if (!this.hasAccount(slug)) throw notFound(`no account "${slug}": see \`accounts list\``);
  }

  /**
   * Checks an account's password with bcrypt (the OAuth consent login for that account's tunnels, T5).
   *
   * @param slug - the account
   * @param password - the candidate
   * @returns whether it matches (false for an unknown account)
   */
  async verifyPassword(slug: string, password: string): Promise<boolean> {
    const account = Object.hasOwn(this.#data.accounts, slug) ? this.#data.accounts[slug] : undefined;
    const bytes = Buffer.byteLength(password, 'utf8');
    if (account === undefined || bytes === 0 || bytes > 72) return false;
    return verify(password, account.passwordHash);
  }

  /**
   * Creates an API key. The key is returned once and never stored (only its SHA-256). Key names are unique per
   * account (callers are recorded by key name: two keys of one name could not be told apart); without a name the
   * key is named `key-<n>`, the first such name the account does not use.
   *
   * @param account - the owner account
   * @param name - a label; empty or undefined: `key-<n>`
   * @returns the key id, its name and the key
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_NOT_FOUND`; `MCPP_OAUTH_ACCOUNT_INVALID` when the account has a key of
   *   that name already
   */
  async createKey(account: string, name?: string): Promise<{ id: string; name: string; key: string }> {
    const id = `key_${randomSecret(6)}`;
    const key = `${KEY_PREFIX}${randomSecret(32)}`;
    let named = name ?? '';
    await this.#change((d) => {
      if (!Object.hasOwn(d.accounts, account))
        throw notFound(`no account "${account}": create it with \`accounts add ${account}\``);
      const used = new Set(
        Object.values(d.keys)
          .filter((k) => k.account === account)
          .map((k) => k.name ?? ''),
      );
      named = name ?? ''; // again on each attempt: a shared store may run this more than once
      if (named === '') for (let n = 1; used.has((named = `key-${n}`)); n++);
      else if (used.has(named))
        throw invalid(
          `account "${account}" has a key named "${named}" already: choose another name, or revoke that key first`,
        );
      d.keys[id] = { id, account, name: named, sha256: sha256(key).toString('hex'), createdAt: Date.now() };
    });
    return { id, name: named, key };
  }

  /**
   * @param account - only this account's keys (default: all)
   * @returns the keys' ids, owners, names and creation times
   */
  listKeys(account?: string): Omit<ApiKeyRecord, 'sha256'>[] {
    return Object.values(this.#data.keys)
      .filter((k) => account === undefined || k.account === account)
      .map(({ sha256: _digest, ...rest }) => rest);
  }

  /** @returns the ids of every stored key */
  keyIds(): Set<string> {
    return new Set(Object.keys(this.#data.keys));
  }

  /**
   * Revokes a key (a running gateway closes its live tunnels when it sees the change).
   *
   * @param id - the key id
   * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_NOT_FOUND`
   */
  async revokeKey(id: string): Promise<void> {
    await this.#change((d) => {
      if (!Object.hasOwn(d.keys, id)) throw notFound(`no key "${id}": see \`keys list\``);
      delete d.keys[id];
    });
  }

  /**
   * Finds the owner of an API key: its SHA-256 is compared in constant time with every stored digest (no
   * early exit).
   *
   * @param key - the presented key
   * @returns the account and key id, or undefined
   */
  authenticateKey(key: string): { account: string; keyId: string } | undefined {
    if (key.length === 0 || key.length > MAX_KEY_INPUT) return undefined;
    const digest = sha256(key);
    let found: { account: string; keyId: string } | undefined;
    for (const k of this.#digests) {
      if (k.digest.length === digest.length && timingSafeEqual(k.digest, digest))
        found = { account: k.account, keyId: k.id };
    }
    return found;
  }

  /**
   * Watches the file (`fs.watch` on the directory plus a poll) and reloads it on change, so a command run in
   * another process is seen within `pollIntervalMs`. On a shared store: the `accounts` pub/sub channel (another
   * node's change is seen at once) plus a poll every `pollIntervalMs` (default 1000) for messages lost while
   * Redis was away.
   *
   * @param onChange - called after a reload that changed something
   * @param options - `pollIntervalMs` (default 500) and `onError` (an unreadable file keeps the previous data)
   * @returns a function that stops watching
   */
  watch(
    onChange: () => void,
    options: { pollIntervalMs?: number; onError?: (err: unknown) => void } = {},
  ): () => void {
    let running = false;
    let again = false;
    const check = (): void => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      void this.reload()
        .then((changed) => changed && onChange(), options.onError)
        .finally(() => {
          running = false;
          if (again) {
            again = false;
            check();
          }
        });
    };
    if (this.#shared) {
      // pub/sub for the instant case, a poll for messages lost while Redis was away
      const timer = setInterval(check, options.pollIntervalMs ?? SHARED_POLL_MS);
      timer.unref();
      const unsubscribe = this.#shared.store.subscribe(SHARED.channel, check);
      unsubscribe.catch(options.onError ?? (() => {}));
      return () => {
        clearInterval(timer);
        void unsubscribe.then((stop) => stop()).catch(() => {});
      };
    }
    let dirWatcher: FSWatcher | undefined;
    try {
      dirWatcher = watch(this.dataDir, (_event, file) => {
        if (file === null || String(file) === ACCOUNTS_FILE) check();
      });
      dirWatcher.on('error', () => {});
    } catch {
      dirWatcher = undefined;
    }
    watchFile(this.path, { interval: options.pollIntervalMs ?? 500, persistent: false }, check);
    return () => {
      dirWatcher?.close();
      unwatchFile(this.path, check);
    };
  }
}
