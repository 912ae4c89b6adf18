import { chmod, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateStore } from './stateStore.js';
import { emptyState, pruneState } from './state.js';
import { captureLogger } from '@mcppipe/test-utils';

const dir = (): Promise<string> => mkdtemp(join(tmpdir(), 'mcppipe-state-'));
const clock = (): number => Date.UTC(2026, 10, 30, 12, 0, 0);
const client = (id: string, issuedAtSec = clock() / 1000) => ({
  client_id: id,
  client_id_issued_at: issuedAtSec,
  redirect_uris: ['https://c.example/cb'],
  token_endpoint_auth_method: 'none' as const,
  grant_types: ['authorization_code'],
  response_types: ['code'],
});

describe('StateStore', () => {
  it('F1: moves a corrupt file aside, logs loudly, boots empty', async () => {
    for (const garbage of [
      '{"version":1,',
      'null',
      '{"version":2}',
      '{"version":1,"clients":{"a":{"client_id":"b"}},"grants":{},"families":{},"revokedTokens":{}}',
    ]) {
      const d = await dir();
      await writeFile(join(d, 'state.json'), garbage);
      const logger = captureLogger();
      const store = await StateStore.open({ dataDir: d, logger, clock });
      expect(store.state).toEqual(emptyState());
      const files = await readdir(d);
      expect(files).toEqual(['state.json.corrupt-2026-11-30T12-00-00-000Z']);
      expect(await readFile(join(d, files[0]!), 'utf8')).toBe(garbage);
      expect(logger.lines.some((l) => l.startsWith('STATE FILE CORRUPT'))).toBe(true);
    }
  });

  it('F2: removes stray temp files of an interrupted write and keeps the complete file', async () => {
    const d = await dir();
    const s1 = await StateStore.open({ dataDir: d, logger: captureLogger(), clock });
    s1.state.clients['a'] = client('a');
    await s1.persist();
    await writeFile(join(d, '.state.json.1234.abcd.tmp'), '{"version":1,"cli');
    const s2 = await StateStore.open({ dataDir: d, logger: captureLogger(), clock });
    expect(Object.keys(s2.state.clients)).toEqual(['a']);
    expect(await readdir(d)).toEqual(['state.json']);
  });

  it('F3: 1000 concurrent mutations are all on disk, through one writer', async () => {
    const d = await dir();
    let writes = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const { writeFileAtomic } = await import('@mcppipe/store');
    const store = await StateStore.open({
      dataDir: d,
      logger: captureLogger(),
      clock,
      write: async (p, data) => {
        writes++;
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        try {
          await writeFileAtomic(p, data);
        } finally {
          concurrent--;
        }
      },
    });
    await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        await new Promise((r) => setImmediate(r));
        store.state.clients[`c${i}`] = client(`c${i}`);
        await store.persist();
      }),
    );
    expect(maxConcurrent).toBe(1);
    expect(writes).toBeLessThan(1000);
    const onDisk = JSON.parse(await readFile(join(d, 'state.json'), 'utf8')) as { clients: object };
    expect(Object.keys(onDisk.clients)).toHaveLength(1000);
  });

  it('F4: a failed write rejects with MCPP_OAUTH_STATE_WRITE_FAILED and the old file stays', async () => {
    const d = await dir();
    let fail = false;
    const { writeFileAtomic } = await import('@mcppipe/store');
    const store = await StateStore.open({
      dataDir: d,
      logger: captureLogger(),
      clock,
      write: (p, data) =>
        fail
          ? Promise.reject(Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }))
          : writeFileAtomic(p, data),
    });
    store.state.clients['a'] = client('a');
    await store.persist();
    const before = await readFile(join(d, 'state.json'), 'utf8');
    fail = true;
    store.state.clients['b'] = client('b');
    await expect(store.persist()).rejects.toMatchObject({ code: 'MCPP_OAUTH_STATE_WRITE_FAILED' });
    expect(await readFile(join(d, 'state.json'), 'utf8')).toBe(before);
    fail = false;
    await store.persist();
    expect(await readFile(join(d, 'state.json'), 'utf8')).toContain('"b"');
  });

  it('F5: writes 0600 whatever the umask, and tightens a loose existing file', async () => {
    const d = await dir();
    const old = process.umask(0o000);
    try {
      const store = await StateStore.open({ dataDir: d, logger: captureLogger(), clock });
      await store.persist();
    } finally {
      process.umask(old);
    }
    expect((await stat(join(d, 'state.json'))).mode & 0o777).toBe(0o600);
    await chmod(join(d, 'state.json'), 0o666);
    const logger = captureLogger();
    await StateStore.open({ dataDir: d, logger, clock });
    expect((await stat(join(d, 'state.json'))).mode & 0o777).toBe(0o600);
    expect(logger.lines.join()).toContain('tightened to 0600');
  });
});

describe('pruneState', () => {
  it('drops expired families, markers and unused clients, and keeps what is live', () => {
    const now = clock();
    const s = emptyState();
    s.clients['old'] = client('old', now / 1000 - 2 * 86400);
    s.clients['fresh'] = client('fresh');
    s.clients['granted'] = client('granted', now / 1000 - 9 * 86400);
    s.grants['granted'] = {
      clientId: 'granted',
      resources: ['https://gw.example/hub'],
      scopes: ['mcp'],
      approvedAt: now,
    };
    s.grants['ghost'] = { clientId: 'ghost', resources: [], scopes: [], approvedAt: now };
    const fam = {
      handleHash: 'h',
      clientId: 'granted',
      sub: 'owner',
      scopes: ['mcp'],
      resource: 'r',
      createdAt: now,
      currentHash: 'c',
    };
    s.families['live'] = {
      ...fam,
      id: 'live',
      refreshExpiresAt: now + 1000,
      accessExpiresAt: 0,
      status: 'active',
    };
    s.families['dead'] = {
      ...fam,
      id: 'dead',
      refreshExpiresAt: now - 1000,
      accessExpiresAt: now / 1000 - 10,
      status: 'active',
    };
    s.families['marker'] = {
      ...fam,
      id: 'marker',
      refreshExpiresAt: now + 1000,
      accessExpiresAt: now / 1000 + 100,
      status: 'revoked',
    };
    s.revokedTokens['j1'] = now / 1000 - 1;
    s.revokedTokens['j2'] = now / 1000 + 100;
    expect(pruneState(s, now, 86_400_000)).toBe(4);
    expect(Object.keys(s.clients).sort()).toEqual(['fresh', 'granted']);
    expect(Object.keys(s.families).sort()).toEqual(['live', 'marker']);
    expect(Object.keys(s.revokedTokens)).toEqual(['j2']);
    expect(Object.keys(s.grants)).toEqual(['granted']);
  });
});
