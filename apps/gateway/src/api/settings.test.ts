import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { createCallerResolver, csrfOk } from './caller.js';
import { SessionStore } from './sessionStore.js';
import { effectiveSettings, mergeSettings } from './settingsBody.js';

const req = (headers: Record<string, string>, method = 'GET') =>
  ({ headers, method }) as unknown as FastifyRequest;

describe('tunnel settings body', () => {
  it('defaults follow the connect metadata; stored fields win', () => {
    const meta = { auth: 'api-key', allow: '10.0.0.0/8, 127.0.0.1' };
    expect(effectiveSettings(meta, undefined)).toMatchObject({
      auth: 'api-key',
      allow: ['10.0.0.0/8', '127.0.0.1'],
    });
    expect(effectiveSettings(meta, { auth: 'none', allow: [] })).toMatchObject({ auth: 'none', allow: [] });
  });

  it('merges a partial body and keeps what is not named', () => {
    const a = mergeSettings({ policies: { deny: ['faults__*'] } }, {}, false);
    const b = mergeSettings({ limits: { callsPerMinute: 5 } }, a as object, false);
    expect(b).toEqual({ policies: { deny: ['faults__*'], allow: [] }, limits: { callsPerMinute: 5 } });
  });

  it('a field set to null is removed: it follows the connect metadata again', () => {
    const stored = mergeSettings({ auth: 'none', allow: [], limits: { callsPerMinute: 5 } }, {}, false);
    const next = mergeSettings({ allow: null, auth: null }, stored as object, false);
    expect(next).toEqual({ limits: { callsPerMinute: 5 } });
    const meta = { auth: 'api-key', allow: '10.0.0.0/8' };
    expect(effectiveSettings(meta, next as object)).toMatchObject({ auth: 'api-key', allow: ['10.0.0.0/8'] });
    // `{ callsPerMinute: null }` is "no limit", stored; `limits: null` removes the field
    expect(mergeSettings({ limits: null }, next as object, false)).toEqual({});
  });

  it('names the field and what to change', () => {
    expect(mergeSettings([], {}, false)).toMatch(/JSON object/);
    expect(mergeSettings({ limits: { callsPerMinute: 0 } }, {}, false)).toMatch(/^limits\.callsPerMinute: /);
    expect(mergeSettings({ limits: { callsPerMinute: 1.5 } }, {}, false)).toMatch(/integer/);
    expect(mergeSettings({ allow: ['10.0.0.0/40'] }, {}, false)).toMatch(/allow: "10\.0\.0\.0\/40"/);
    // an empty prefix was read as /0: an allowlist saved to narrow the tunnel opened it to every address
    expect(mergeSettings({ allow: ['10.0.0.0/'] }, {}, false)).toMatch(
      /allow: "10\.0\.0\.0\/" is not an address/,
    );
    expect(mergeSettings({ capture: { values: 'yes' } }, {}, false)).toMatch(/^capture: /);
    expect(mergeSettings({ holdChangedTools: 1 }, {}, false)).toMatch(/^holdChangedTools: /);
  });

  it('refuses policies, limits and capture of values on a zero-knowledge tunnel', () => {
    expect(mergeSettings({ policies: { deny: ['x__*'] } }, {}, true)).toMatch(/zero-knowledge/);
    expect(mergeSettings({ limits: { callsPerMinute: 3 } }, {}, true)).toMatch(/zero-knowledge/);
    expect(mergeSettings({ auth: 'api-key', allow: ['127.0.0.1'] }, {}, true)).toEqual({
      auth: 'api-key',
      allow: ['127.0.0.1'],
    });
  });
});

describe('sessions and the caller', () => {
  it('slides the expiry on use and forgets an expired session', () => {
    let now = 0;
    const sessions = new SessionStore({ now: () => now, ttlMs: 1000 });
    const { id } = sessions.create('alice');
    now = 900;
    expect(sessions.touch(id)?.account).toBe('alice');
    now = 1800; // 900 ms after the last use
    expect(sessions.touch(id)?.account).toBe('alice');
    now = 2801;
    expect(sessions.touch(id)).toBeUndefined();
  });

  it('resolves admin, key and session callers; a bearer that matches nothing is no caller', () => {
    const sessions = new SessionStore();
    const { id, session } = sessions.create('alice');
    const resolve = createCallerResolver({
      apiToken: 'admin-token',
      accounts: {
        authenticateKey: (k) => (k === 'mcpp_k' ? { account: 'bob', keyId: 'key_1' } : undefined),
        hasAccount: (a) => a !== 'removed',
      },
      sessions,
    });
    expect(resolve(req({ authorization: 'Bearer admin-token' }))).toEqual({ kind: 'admin' });
    expect(resolve(req({ authorization: 'Bearer mcpp_k' }))).toEqual({
      kind: 'account',
      account: 'bob',
      via: 'key',
      keyId: 'key_1',
    });
    const cookie = `mcppipe_session=${id}`;
    expect(resolve(req({ cookie }))).toEqual({
      kind: 'account',
      account: 'alice',
      via: 'session',
      csrf: session.csrf,
    });
    expect(resolve(req({ cookie, authorization: 'Bearer wrong' }))).toBeUndefined();
    expect(resolve(req({}))).toBeUndefined();
    const gone = sessions.create('removed');
    expect(resolve(req({ cookie: `mcppipe_session=${gone.id}` }))).toBeUndefined();
  });

  it('asks a session for its CSRF token on state-changing methods only', () => {
    const caller = { kind: 'account', account: 'a', via: 'session', csrf: 'tok' } as const;
    expect(csrfOk(req({}, 'GET'), caller)).toBe(true);
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(csrfOk(req({}, m), caller)).toBe(false);
      expect(csrfOk(req({ 'x-csrf-token': 'nope' }, m), caller)).toBe(false);
      expect(csrfOk(req({ 'x-csrf-token': 'tok' }, m), caller)).toBe(true);
    }
    expect(csrfOk(req({}, 'PUT'), { kind: 'account', account: 'a', via: 'key', keyId: 'k' })).toBe(true);
  });
});

describe('TunnelSettingsStore', () => {
  it('survives a restart: written atomically with mode 0600, read back by a new store', async () => {
    const { mkdtemp, rm, stat } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { TunnelSettingsStore } = await import('./settingsStore.js');
    const { SETTINGS_FILE } = await import('./settingsFile.js');
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-settings-store-'));
    try {
      const first = await TunnelSettingsStore.open(dir);
      expect(first.get('laptop--alice')).toBeUndefined();
      await first.put('laptop--alice', { limits: { callsPerMinute: 7 } });
      expect((await stat(join(dir, SETTINGS_FILE))).mode & 0o777).toBe(0o600);
      const again = await TunnelSettingsStore.open(dir);
      expect(again.get('laptop--alice')).toEqual({ limits: { callsPerMinute: 7 } });
      expect(again.has('desk--alice')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
