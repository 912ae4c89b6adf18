/**
 * Dashboard sessions, kept on the server: a random id (the cookie) → account, CSRF token and a sliding expiry
 * (12 h since the last use). In memory and synchronous, because the API's caller resolution is synchronous (the
 * contract's `resolveCaller`); bounded in count (the oldest session is dropped first).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

/** One session. */
export interface Session {
  account: string;
  csrf: string;
  /** Epoch ms after which the session is gone unless used before. */
  expiresAt: number;
}

/** Sessions expire this long after their last use (sliding). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The most sessions kept at once. */
export const MAX_SESSIONS = 10_000;

const token = (): string => randomBytes(32).toString('base64url');

/**
 * The sessions as the routes and the caller resolver use them: this node's {@link SessionStore}, or with `--redis`
 * (S1) the table every node shares (`scale/sessions.ts`).
 */
export interface SessionTable {
  create(account: string): { id: string; session: Session } | Promise<{ id: string; session: Session }>;
  touch(id: string): Session | undefined;
  delete(id: string): void | Promise<void>;
  /** Many nodes: brings this node's copy of a session up to date before the (synchronous) `touch` reads it. */
  load?(id: string): Promise<void>;
}

/** The session table. */
export class SessionStore implements SessionTable {
  readonly #sessions = new Map<string, Session>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  /**
   * @param options - `now` (epoch ms clock, default `Date.now`) and `ttlMs` (default 12 h)
   */
  constructor(options: { now?: () => number; ttlMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? SESSION_TTL_MS;
  }

  /**
   * Opens a session for an account whose password was checked.
   *
   * @param account - the account slug
   * @returns the session id (the cookie value, 256 random bits) and the session
   */
  create(account: string): { id: string; session: Session } {
    if (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    const id = token();
    const session = { account, csrf: token(), expiresAt: this.#now() + this.#ttlMs };
    this.#sessions.set(id, session);
    return { id, session };
  }

  /**
   * Looks a session up and slides its expiry.
   *
   * @param id - the cookie value
   * @returns the live session, or undefined (unknown or expired; an expired one is deleted)
   */
  touch(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.#now();
    if (session.expiresAt <= now) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.expiresAt = now + this.#ttlMs;
    this.#sessions.delete(id); // re-insert: the map stays ordered by last use
    this.#sessions.set(id, session);
    return session;
  }

  /**
   * Keeps a session opened elsewhere (another node, S1) as it is; `undefined` forgets it (ended elsewhere).
   *
   * @param id - the cookie value
   * @param session - the shared session, or undefined
   */
  put(id: string, session: Session | undefined): void {
    this.#sessions.delete(id);
    if (session !== undefined) this.#sessions.set(id, { ...session });
  }

  /** Ends a session (logout). */
  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /** Ends every session of an account (its removal). */
  deleteAccount(account: string): void {
    for (const [id, s] of this.#sessions) if (s.account === account) this.#sessions.delete(id);
  }
}
