/**
 * The verified-token cache: the signature and claim checks of an access token (one Ed25519 verification,
 * ~0.1–0.15 ms of CPU) are remembered for the exact token bytes, so an agent that sends the same token on
 * every call pays them once. Only what the token itself proves is cached; everything that can change while
 * the token lives (its family's and client's revocation, its `jti` revocation, the audience asked for, the
 * time) is checked again on every use by `verify.ts`.
 *
 * The key is the SHA-256 of the token, not the token: the cache never holds a bearer credential, and one
 * byte of difference anywhere (a forged signature) is a different key. Bounded: at most `maxEntries`
 * (least recently used evicted), each valid until `min(exp + skew, cached at + ttlMs)`.
 *
 * @module
 */
import { hash } from 'node:crypto';
import type { VerifiedClaims } from './accessToken.js';

/** Options of {@link VerifiedTokenCache}. */
export interface VerifiedTokenCacheOptions {
  /** Most tokens remembered; 0 disables the cache. */
  maxEntries: number;
  /** Longest an entry is trusted, in ms, whatever the token's `exp`. */
  ttlMs: number;
  /** Clock skew tolerated on `exp`, in seconds (the verifier's own tolerance). */
  skewSec: number;
}

interface Entry {
  claims: VerifiedClaims;
  /** Epoch ms when the entry was stored (a clock that moved back invalidates it). */
  storedAtMs: number;
  /** Epoch ms from which the entry is no longer used. */
  validUntilMs: number;
}

/** An LRU of verified access-token claims, keyed by the SHA-256 of the exact token bytes. */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: VerifiedTokenCacheOptions;

  /**
   * @param options - size, TTL and skew
   */
  constructor(options: VerifiedTokenCacheOptions) {
    this.#options = options;
  }

  /** Whether the cache stores anything (`maxEntries` > 0). */
  get enabled(): boolean {
    return this.#options.maxEntries > 0;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The cache key of a token: its SHA-256, base64. The token must be ASCII (a compact JWS is), so the
   * UTF-8 bytes hashed are exactly the token's characters.
   *
   * @param token - the compact JWS
   */
  keyOf(token: string): string {
    return hash('sha256', token, 'base64');
  }

  /**
   * The claims remembered for a token key, when the entry is still valid at `nowMs`.
   *
   * @param key - from {@link keyOf}
   * @param nowMs - the current time, epoch ms
   */
  get(key: string, nowMs: number): VerifiedClaims | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (nowMs >= entry.validUntilMs || nowMs < entry.storedAtMs) return undefined;
    this.#entries.set(key, entry); // most recently used last
    return entry.claims;
  }

  /**
   * Remembers the claims of a token that passed signature and claim verification at `nowMs`.
   *
   * @param key - from {@link keyOf}
   * @param claims - the verified claims
   * @param nowMs - the current time, epoch ms
   */
  set(key: string, claims: VerifiedClaims, nowMs: number): void {
    const { maxEntries, ttlMs, skewSec } = this.#options;
    if (maxEntries <= 0) return;
    const validUntilMs = Math.min((claims.exp + skewSec) * 1000, nowMs + ttlMs);
    if (validUntilMs <= nowMs) return;
    this.#entries.delete(key);
    while (this.#entries.size >= maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { claims, storedAtMs: nowMs, validUntilMs });
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
  }
}
