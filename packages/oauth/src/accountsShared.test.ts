import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRedisStore } from '@mcppipe/store';
import { startRedis, waitFor, type RunningRedis } from '@mcppipe/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountStore } from './accounts.js';
import { loadOrCreateSharedSigningKey } from './keys.js';

let redis: RunningRedis;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-accounts-shared-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('two nodes on one Redis share accounts and keys; a revoked key is refused by the other node within a second', async () => {
  await using storeA = await openRedisStore({ url: redis.url });
  await using storeB = await openRedisStore({ url: redis.url });
  const a = await AccountStore.open(join(dir, 'a'), { store: storeA });
  const b = await AccountStore.open(join(dir, 'b'), { store: storeB });
  let changes = 0;
  const stop = b.watch(() => changes++);
  await a.addAccount('alice', 'alice passphrase');
  const { id, key } = await a.createKey('alice', 'laptop');
  await waitFor(() => b.authenticateKey(key) !== undefined, { timeoutMs: 2_000, intervalMs: 10 });
  expect(b.authenticateKey(key)).toEqual({ account: 'alice', keyId: id });
  expect(await b.verifyPassword('alice', 'alice passphrase')).toBe(true);

  await a.revokeKey(id);
  const revokedAt = Date.now();
  await waitFor(() => b.authenticateKey(key) === undefined, { timeoutMs: 2_000, intervalMs: 5 });
  expect(Date.now() - revokedAt).toBeLessThan(1_000);
  expect(changes).toBeGreaterThanOrEqual(2);
  stop();
  // nothing on disk: the accounts live in Redis only
  await expect(readdir(join(dir, 'a'))).rejects.toMatchObject({ code: 'ENOENT' });
}, 30_000);

it('concurrent changes from two nodes are both kept (atomic update, no lost write)', async () => {
  await using storeA = await openRedisStore({ url: redis.url, keyPrefix: 'race:' });
  await using storeB = await openRedisStore({ url: redis.url, keyPrefix: 'race:' });
  const a = await AccountStore.open(join(dir, 'a'), { store: storeA });
  const b = await AccountStore.open(join(dir, 'b'), { store: storeB });
  await a.addAccount('alice', 'alice passphrase');
  await b.reload();
  const keys = await Promise.all([
    ...Array.from({ length: 5 }, () => a.createKey('alice')),
    ...Array.from({ length: 5 }, () => b.createKey('alice')),
  ]);
  await a.reload();
  expect(
    a
      .listKeys('alice')
      .map((k) => k.id)
      .sort(),
  ).toEqual(keys.map((k) => k.id).sort());
});

it('two nodes booting together on one Redis end with one signing key (one JWKS)', async () => {
  await using storeA = await openRedisStore({ url: redis.url, keyPrefix: 'keys:' });
  await using storeB = await openRedisStore({ url: redis.url, keyPrefix: 'keys:' });
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const [ka, kb] = await Promise.all([
    loadOrCreateSharedSigningKey(storeA.collection<string>('signing'), silent),
    loadOrCreateSharedSigningKey(storeB.collection<string>('signing'), silent),
  ]);
  expect(ka.kid).toBe(kb.kid);
  expect(ka.publicJwk).toEqual(kb.publicJwk);
  await storeA.collection<string>('signing').set('jwt-key', 'not a key');
  await expect(
    loadOrCreateSharedSigningKey(storeB.collection<string>('signing'), silent),
  ).rejects.toMatchObject({
    code: 'MCPP_OAUTH_KEY_CORRUPT',
  });
});
