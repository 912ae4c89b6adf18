import { BROWSER_SESSION_TTL_MS, MAX_PENDING_ENTRIES, PENDING_REQUEST_TTL_MS } from './defaults.js';
import type { AuthorizationRequest } from './authorizationRequest.js';
import { randomSecret } from './secrets.js';

/** A browser's session with the authorization server (cookie-bound, memory only). */
export interface BrowserSession {
  id: string;
  /** The synchronizer token every form of this session carries. */
  csrf: string;
  expiresAt: number;
  /** Set once the owner password was entered in this session. */
  authenticated: boolean;
  /** Who signed in: {@link ADMIN_PRINCIPAL} or a relay account slug (T5). */
  principal?: string;
}

/** The principal of a session signed in with the admin password. */
export const ADMIN_PRINCIPAL = '@admin';

/** An authorization request waiting for login or approval; bound to the session that started it. */
export interface PendingRequest {
  id: string;
  sessionId: string;
  request: AuthorizationRequest;
  expiresAt: number;
}

function evict<V extends { expiresAt: number }>(map: Map<string, V>, now: number): void {
  for (const [k, v] of map) {
    if (v.expiresAt <= now || map.size > MAX_PENDING_ENTRIES) map.delete(k);
    else break;
  }
}

/** Browser sessions and pending authorization requests, both bounded and expiring. */
export class BrowserState {
  private readonly sessions = new Map<string, BrowserSession>();
  private readonly pending = new Map<string, PendingRequest>();

  constructor(private readonly clock: () => number) {}

  /** @returns the live session with this id, if any */
  session(id: string | undefined): BrowserSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (s && s.expiresAt > this.clock()) return s;
    if (s) this.sessions.delete(id);
    return undefined;
  }

  /** @returns a new anonymous session */
  createSession(): BrowserSession {
    const now = this.clock();
    evict(this.sessions, now);
    const s: BrowserSession = {
      id: randomSecret(32),
      csrf: randomSecret(32),
      expiresAt: now + BROWSER_SESSION_TTL_MS,
      authenticated: false,
    };
    this.sessions.set(s.id, s);
    return s;
  }

  /**
   * Marks a login: the session id and CSRF token are replaced (no session fixation) and pending requests
   * move to the new session.
   *
   * @returns the new, authenticated session
   */
  authenticate(old: BrowserSession, principal: string = ADMIN_PRINCIPAL): BrowserSession {
    this.sessions.delete(old.id);
    const s = { ...this.createSession(), authenticated: true, principal };
    this.sessions.set(s.id, s);
    for (const p of this.pending.values()) if (p.sessionId === old.id) p.sessionId = s.id;
    return s;
  }

  /** @returns a new pending request for this session */
  addPending(sessionId: string, request: AuthorizationRequest): PendingRequest {
    const now = this.clock();
    evict(this.pending, now);
    const p: PendingRequest = {
      id: randomSecret(16),
      sessionId,
      request,
      expiresAt: now + PENDING_REQUEST_TTL_MS,
    };
    this.pending.set(p.id, p);
    return p;
  }

  /** @returns the pending request if it exists, is live and belongs to this session */
  pendingFor(id: string | undefined, sessionId: string): PendingRequest | undefined {
    if (!id) return undefined;
    const p = this.pending.get(id);
    if (!p || p.expiresAt <= this.clock() || p.sessionId !== sessionId) return undefined;
    return p;
  }

  /** Removes a pending request (it was answered). */
  finish(id: string): void {
    this.pending.delete(id);
  }
}
