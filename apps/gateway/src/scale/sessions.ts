/**
 * Dashboard sessions shared by every node (DESIGN.md S1, D1): with `--redis` a session lives in
 * `mcppipe:sessions:<id>` (its TTL is the sliding expiry) and each node keeps a copy in its {@link SessionStore}
 * for the synchronous caller resolution. Before a request with a session cookie is resolved, its copy is brought up
 * to date from Redis (one read): a login on node A is valid on node B at once, a logout on either ends it everywhere.
 *
 * @module
 */
import type { Collection } from '@mcppipe/store';
import type { Session, SessionTable } from '../api/sessionStore.js';
import { SESSION_TTL_MS, SessionStore } from '../api/sessionStore.js';
import type { Logger } from '../types.js';

/** The shared expiry is written again when the session was used this long after its last write, ms. */
const SLIDE_WRITE_MS = 60_000;

/**
 * Builds the shared table.
 *
 * @param shared - the Redis collection (`store.collection('sessions')`)
 * @param options - `logger` (a failed read is logged, the local copy decides meanwhile), `now`, `ttlMs`
 * @returns the session table the routes and the caller resolver use
 */
export function sharedSessions(
  shared: Collection<Session>,
  options: { logger: Logger; now?: () => number; ttlMs?: number },
): SessionTable {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? SESSION_TTL_MS;
  const local = new SessionStore({ now, ttlMs });
  const warn = (err: unknown, what: string) =>
    options.logger.warn({ err: (err as Error).message }, `dashboard sessions: could not ${what} in Redis`);
  return {
    async create(account) {
      const created = local.create(account);
      await shared.set(created.id, created.session, { ttlMs });
      return created;
    },
    touch: (id) => local.touch(id),
    async delete(id) {
      local.delete(id);
      await shared.delete(id);
    },
    async load(id) {
      let session: Session | undefined;
      try {
        session = await shared.get(id);
      } catch (err) {
        return warn(err, 'read a session'); // Redis away: this node's copy decides until it is back
      }
      const t = now();
      local.put(id, session !== undefined && session.expiresAt > t ? session : undefined);
      if (session === undefined || session.expiresAt - t > ttlMs - SLIDE_WRITE_MS) return;
      const slid = { ...session, expiresAt: t + ttlMs }; // the sliding expiry, shared once a minute at most
      shared.set(id, slid, { ttlMs }).catch((err: unknown) => warn(err, 'extend a session'));
    },
  };
}
