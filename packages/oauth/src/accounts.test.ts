import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNTS_FILE, AccountStore } from './accounts.js';

describe('AccountStore (T1)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-accounts-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('stores a bcrypt hash and key digests only, mode 0600, and finds keys by their owner', async () => {
    const store = await AccountStore.open(dir);
    await store.addAccount('alice', 'alice password 1');
    const { id, key } = await store.createKey('alice', 'laptop');
    const text = await readFile(join(dir, ACCOUNTS_FILE), 'utf8');
    expect(text).not.toContain('alice password 1');
    expect(text).not.toContain(key);
    expect(text).toMatch(/"passwordHash": "\$2b\$12\$/);
    expect((await stat(join(dir, ACCOUNTS_FILE))).mode & 0o777).toBe(0o600);
    expect(store.authenticateKey(key)).toEqual({ account: 'alice', keyId: id });
    expect(store.authenticateKey(`${key}x`)).toBeUndefined();
    expect(await store.verifyPassword('alice', 'alice password 1')).toBe(true);
    expect(await store.verifyPassword('alice', 'wrong')).toBe(false);
    expect(store.listKeys('alice')).toEqual([
      { id, account: 'alice', name: 'laptop', createdAt: expect.any(Number) as number },
    ]);
    expect(() => store.requireAccount('alice')).not.toThrow();
    expect(() => store.requireAccount('nobody')).toThrow(
      expect.objectContaining({
        code: 'MCPP_OAUTH_ACCOUNT_NOT_FOUND',
        message: expect.stringContaining('no account "nobody"'),
      }),
    );
  });

  it('refuses a bad slug and a duplicate, and a second process sees revocation on reload', async () => {
    const a = await AccountStore.open(dir);
    await expect(a.addAccount('Bad__slug', 'pw')).rejects.toMatchObject({
      code: 'MCPP_OAUTH_ACCOUNT_INVALID',
    });
    await a.addAccount('bob', 'bob password');
    await expect(a.addAccount('bob', 'x')).rejects.toMatchObject({ code: 'MCPP_OAUTH_ACCOUNT_INVALID' });
    const { id, key } = await a.createKey('bob');
    const b = await AccountStore.open(dir);
    await b.revokeKey(id);
    expect(a.authenticateKey(key)).toEqual({ account: 'bob', keyId: id });
    expect(await a.reload()).toBe(true);
    expect(a.authenticateKey(key)).toBeUndefined();
    await expect(b.revokeKey(id)).rejects.toMatchObject({ code: 'MCPP_OAUTH_ACCOUNT_NOT_FOUND' });
  });

  it('names keys uniquely per account: key-<n> by default, a name used twice is refused', async () => {
    const a = await AccountStore.open(dir);
    await a.addAccount('carol', 'carol password');
    await a.addAccount('dan', 'dan password');
    expect((await a.createKey('carol')).name).toBe('key-1');
    expect((await a.createKey('carol', '')).name).toBe('key-2');
    expect((await a.createKey('carol', 'ci-bot')).name).toBe('ci-bot');
    await expect(a.createKey('carol', 'ci-bot')).rejects.toMatchObject({
      code: 'MCPP_OAUTH_ACCOUNT_INVALID',
      message:
        'account "carol" has a key named "ci-bot" already: choose another name, or revoke that key first',
    });
    expect((await a.createKey('dan', 'ci-bot')).name).toBe('ci-bot'); // another account's names are its own
    const first = a.listKeys('carol').find((k) => k.name === 'key-1')!;
    await a.revokeKey(first.id);
    expect((await a.createKey('carol')).name).toBe('key-1'); // a revoked key's name is free again
    expect(
      a
        .listKeys('carol')
        .map((k) => k.name)
        .sort(),
    ).toEqual(['ci-bot', 'key-1', 'key-2']);
  });
});
