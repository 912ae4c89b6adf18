import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmod, link, open, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { calculateJwkThumbprint, exportJWK, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import { fsyncDir } from '@mcppipe/store';
import type { Collection } from '@mcppipe/store';
import type { Logger } from './logger.js';
import { randomSecret } from './secrets.js';

/** The gateway's signing key, imported once for jose. */
export interface SigningKey {
  /** Signs access tokens (EdDSA / Ed25519). */
  readonly privateKey: CryptoKey;
  /** Verifies access tokens. */
  readonly publicKey: CryptoKey;
  /** The RFC 7638 thumbprint of the public key; every token's `kid`. */
  readonly kid: string;
  /** The public key as a JWK (for the JWKS document). */
  readonly publicJwk: JWK;
}

/** The file name of the key inside the data directory (DESIGN.md G12). */
export const KEY_FILE = 'jwt-key.pem';

/**
 * Loads `<dataDir>/jwt-key.pem`, creating it on first boot. Creation writes a private temp file (mode
 * 0600) and hard-links it into place, which fails if the name exists (`O_EXCL` semantics without a window
 * in which another process could read a half-written file): two simultaneous boots end with one key.
 * A key file that exists but is not an Ed25519 private key fails closed; it is never replaced silently.
 *
 * @param dataDir - the data directory (exists)
 * @param logger - where to report creation and loose permissions
 * @returns the imported key
 * @throws McpPipeError `MCPP_OAUTH_KEY_CORRUPT` when the file is not an Ed25519 private key
 */
export async function loadOrCreateSigningKey(dataDir: string, logger: Logger): Promise<SigningKey> {
  const path = join(dataDir, KEY_FILE);
  let pem = await readKeyFile(path);
  if (pem === undefined) {
    await createKeyFile(path, logger);
    pem = await readKeyFile(path);
  }
  if (pem === undefined) throw corrupt(path, 'it disappeared while being created');
  await checkMode(path, logger);
  return importSigningKey(pem, path);
}

/** The entry of the shared signing key in a store's `signing` collection (S1). */
const SHARED_KEY_ENTRY = 'jwt-key';

/**
 * The one signing key of many nodes (S1, G2): read from a shared store, created there by the first node to boot
 * (`compareAndSwap` on an absent entry, so two nodes booting together end with one key). Every node signs and
 * verifies with it, so the JWKS is the same on every node. The store then holds the private key: protect Redis
 * like the key file (password, TLS, private network).
 *
 * @param signing - the store's `signing` collection
 * @param logger - where to report creation
 * @returns the imported key
 * @throws McpPipeError `MCPP_OAUTH_KEY_CORRUPT` when the stored value is not an Ed25519 private key;
 *   `MCPP_STORE_UNAVAILABLE` when the store cannot be reached
 */
export async function loadOrCreateSharedSigningKey(
  signing: Collection<string>,
  logger: Logger,
): Promise<SigningKey> {
  let pem = await signing.get(SHARED_KEY_ENTRY);
  if (pem === undefined) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const fresh = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    if (await signing.compareAndSwap(SHARED_KEY_ENTRY, { expected: undefined, next: fresh }))
      logger.info({}, 'created the shared Ed25519 signing key in the store');
    pem = await signing.get(SHARED_KEY_ENTRY);
  }
  if (pem === undefined) throw corrupt('the store', 'the signing key disappeared while being created');
  return importSigningKey(pem, 'the store');
}

async function readKeyFile(path: string): Promise<string | undefined> {
  // An empty file can only be another process's in-flight O_EXCL fallback write: wait briefly, bounded.
  for (let attempt = 0; attempt < 20; attempt++) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    if (text.length > 0) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  return '';
}

async function createKeyFile(path: string, logger: Logger): Promise<void> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomSecret(6)}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.chmod(0o600);
    await fh.writeFile(pem, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await link(tmp, path);
    logger.info({ path }, 'created a new Ed25519 signing key');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') await writeExclusive(path, pem, logger);
  } finally {
    await rm(tmp, { force: true });
  }
  await fsyncDir(dirname(path));
}

/** Fallback for file systems without hard links: O_EXCL on the final name. */
async function writeExclusive(path: string, pem: string, logger: Logger): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    await fh.chmod(0o600);
    await fh.writeFile(pem, 'utf8');
    await fh.sync();
    logger.info({ path }, 'created a new Ed25519 signing key');
  } finally {
    await fh.close();
  }
}

async function checkMode(path: string, logger: Logger): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    logger.warn(
      { path, mode: (mode & 0o777).toString(8) },
      'signing key was readable by others; tightened to 0600',
    );
    await chmod(path, 0o600);
  }
}

async function importSigningKey(pem: string, path: string): Promise<SigningKey> {
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw corrupt(path, 'it is not a PEM private key', err);
  }
  if (keyObject.asymmetricKeyType !== 'ed25519') {
    throw corrupt(path, `it holds a ${keyObject.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  }
  const publicJwk = createPublicKey(keyObject).export({ format: 'jwk' }) as JWK;
  const pkcs8 = keyObject.export({ format: 'pem', type: 'pkcs8' }).toString();
  const privateKey = await importPKCS8(pkcs8, 'EdDSA');
  const publicKey = (await importJWK(publicJwk, 'EdDSA')) as CryptoKey;
  const kid = await calculateJwkThumbprint(publicJwk);
  const exported = await exportJWK(publicKey);
  return { privateKey, publicKey, kid, publicJwk: { ...exported, kid, alg: 'EdDSA', use: 'sig' } };
}

function corrupt(path: string, why: string, cause?: unknown): McpPipeError<'MCPP_OAUTH_KEY_CORRUPT'> {
  return new McpPipeError(
    'MCPP_OAUTH_KEY_CORRUPT',
    `${path} is corrupt: ${why}. The gateway refuses to start rather than mint a new key silently. Restore it ` +
      'from a backup, or delete it: the gateway then generates a new key, which signs out every existing token ' +
      '(each client must authorize again).',
    { cause },
  );
}
