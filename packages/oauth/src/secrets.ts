import { createHash, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A random, URL-safe secret.
 *
 * @param bytes - entropy in bytes (32 = 256 bits for codes and refresh tokens)
 * @returns base64url text without padding
 */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The SHA-256 digest of a high-entropy secret, as stored in `state.json` (never the secret itself).
 *
 * @param secret - a token, code or client secret
 * @returns base64url of the digest
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'base64url'); // one-shot: every bearer check hashes the token
}

/**
 * The SHA-256 digest of a text's UTF-8 bytes, as a 32-byte `Buffer` (for `timingSafeEqual`, or `.toString('hex')`).
 * One-shot `crypto.hash` (Node ≥ 20.12): about half the cost of a `Hash` object, and it runs on every API-key and
 * admin-token check. The one home of this digest: `AccountStore` keys and the gateway's `/api` caller use it.
 *
 * @param text - any string (a key, a token)
 * @returns the 32-byte digest
 */
export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/**
 * A secret derived from another: `BASE64URL(HMAC-SHA256(key, input))` (256 bits).
 *
 * @param key - a random key (base64url text, as from {@link randomSecret})
 * @param input - the value the secret is bound to
 * @returns base64url text without padding
 */
export function deriveSecret(key: string, input: string): string {
  return createHmac('sha256', Buffer.from(key, 'base64url')).update(input, 'utf8').digest('base64url');
}

const compareKey = randomBytes(32);

/**
 * Compares two strings in constant time whatever their lengths: both sides are HMAC'ed first, so
 * `timingSafeEqual` never sees buffers of different length (it would throw a `RangeError`).
 *
 * @param a - one string
 * @param b - the other
 * @returns whether they are equal
 */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHmac('sha256', compareKey).update(a, 'utf8').digest();
  const hb = createHmac('sha256', compareKey).update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/**
 * The PKCE S256 transform: `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2).
 *
 * @param verifier - the code verifier
 * @returns the code challenge
 */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
