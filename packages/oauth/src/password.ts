import { hash, verify } from '@node-rs/bcrypt';
import { McpPipeError } from '@mcppipe/errors';
import { BCRYPT_COST } from './defaults.js';
import { invalidOptions } from './errors.js';
import { safeEqual } from './secrets.js';

/** bcrypt reads at most 72 bytes; longer passwords would be silently truncated, so they are refused. */
const BCRYPT_MAX_BYTES = 72;
/** Longest password input examined at login (bounds the work per attempt). */
const MAX_LOGIN_INPUT_BYTES = 1024;
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/**
 * Hashes the admin password with bcrypt (cost 12) for `MCPPIPE_ADMIN_PASSWORD_HASH`; this is what
 * `mcppipe-gateway hash-password` prints.
 *
 * @param password - the password, 1–72 bytes of UTF-8
 * @returns a `$2b$12$…` hash
 * @throws McpPipeError `MCPP_OAUTH_INVALID_OPTIONS` when the password is empty or longer than 72 bytes
 * @example Hashing a password
 * ```ts
 * const h = await hashPassword('correct horse battery staple'); // '$2b$12$…'
 * ```
 */
export async function hashPassword(password: string): Promise<string> {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes === 0 || bytes > BCRYPT_MAX_BYTES) {
    throw invalidOptions(
      `the password must be 1 to ${BCRYPT_MAX_BYTES} bytes long (bcrypt ignores anything beyond)`,
    );
  }
  return hash(password, BCRYPT_COST);
}

/** Checks a login attempt against the admin password. */
export type PasswordVerifier = (candidate: string) => Promise<boolean>;

/**
 * Builds the verifier for the one admin password: a bcrypt hash is checked with bcrypt; a plain password is
 * compared in constant time (HMAC of both sides, so lengths never leak or throw).
 *
 * @param options - exactly one of `password` and `passwordHash`
 * @param options.password - the plain password (`MCPPIPE_ADMIN_PASSWORD`)
 * @param options.passwordHash - a bcrypt hash (`MCPPIPE_ADMIN_PASSWORD_HASH`)
 * @returns the verifier
 * @throws McpPipeError `MCPP_OAUTH_NO_PASSWORD` when neither is set or the hash is not bcrypt;
 *   `MCPP_OAUTH_INVALID_OPTIONS` when both are set
 */
export function createPasswordVerifier(options: {
  password?: string | undefined;
  passwordHash?: string | undefined;
}): PasswordVerifier {
  const { password, passwordHash } = options;
  if (password && passwordHash) {
    throw invalidOptions(
      'set either adminPassword (MCPPIPE_ADMIN_PASSWORD) or adminPasswordHash (MCPPIPE_ADMIN_PASSWORD_HASH), not both',
    );
  }
  if (passwordHash) {
    const h = passwordHash.trim();
    if (!BCRYPT_HASH.test(h)) {
      throw new McpPipeError(
        'MCPP_OAUTH_NO_PASSWORD',
        'MCPPIPE_ADMIN_PASSWORD_HASH is not a bcrypt hash; create one with `mcppipe-gateway hash-password`',
      );
    }
    return async (candidate) => {
      const bytes = Buffer.byteLength(candidate, 'utf8');
      if (bytes === 0 || bytes > BCRYPT_MAX_BYTES) return false;
      return verify(candidate, h);
    };
  }
  if (password) {
    return (candidate) => {
      if (Buffer.byteLength(candidate, 'utf8') > MAX_LOGIN_INPUT_BYTES) return Promise.resolve(false);
      return Promise.resolve(safeEqual(candidate, password));
    };
  }
  throw new McpPipeError(
    'MCPP_OAUTH_NO_PASSWORD',
    'no admin password: set MCPPIPE_ADMIN_PASSWORD, or MCPPIPE_ADMIN_PASSWORD_HASH to the output of `mcppipe-gateway hash-password`',
  );
}
