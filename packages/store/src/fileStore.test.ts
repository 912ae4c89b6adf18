import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openFileStore } from './fileStore.js';

let dir: string;
beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'mcppipe-fstore-'))));
afterEach(async () => rm(dir, { recursive: true, force: true }));

it("writes today's state.json unchanged on disk: version 1, the four collections, one-space indent, mode 0600", async () => {
  const store = await openFileStore({ dataDir: dir });
  await store.collection('families').set('f1', { id: 'f1', currentHash: 'h' });
  await store.collection('owners').set('t1', 'node-a', { ttlMs: 60_000 }); // TTL keys never reach the file
  await store.close();
  const text = await readFile(join(dir, 'state.json'), 'utf8');
  expect(text).toBe(
    `${JSON.stringify({ version: 1, clients: {}, grants: {}, families: { f1: { id: 'f1', currentHash: 'h' } }, revokedTokens: {} }, null, 1)}\n`,
  );
  expect((await stat(join(dir, 'state.json'))).mode & 0o777).toBe(0o600);
  const again = await openFileStore({ dataDir: dir });
  expect(await again.collection('families').get('f1')).toEqual({ id: 'f1', currentHash: 'h' });
  await again.close();
});

it('a corrupt state.json moves to state.json.corrupt-<timestamp> and the store starts empty (G12)', async () => {
  await writeFile(join(dir, 'state.json'), '{"version":1,"clients":', { mode: 0o600 });
  const moved: string[] = [];
  const store = await openFileStore({
    dataDir: dir,
    clock: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    onCorrupt: (to) => moved.push(to),
  });
  expect(moved).toEqual([join(dir, 'state.json.corrupt-2026-01-02T03-04-05-006Z')]);
  expect(await store.collection('clients').entries()).toEqual([]);
  await store.close();
  // a file the validator rejects counts as corrupt too
  await writeFile(join(dir, 'state.json'), '{"version":1,"clients":{"c":{}}}');
  const strict = await openFileStore({
    dataDir: dir,
    validate: (d) => ((d as { clients: object }).clients ? 'client c' : undefined),
    clock: () => 0,
  });
  await strict.close();
  expect((await readdir(dir)).sort()).toEqual([
    'state.json.corrupt-1970-01-01T00-00-00-000Z',
    'state.json.corrupt-2026-01-02T03-04-05-006Z',
  ]);
});

it('a failed write rejects with MCPP_STORE_WRITE_FAILED, naming the file, not the raw error', async () => {
  const store = await openFileStore({
    dataDir: dir,
    write: async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
  });
  await expect(store.collection('clients').set('c', { x: 1 })).rejects.toMatchObject({
    code: 'MCPP_STORE_WRITE_FAILED',
    message: `could not write ${join(dir, 'state.json')} (ENOSPC); the old file is intact: free disk space or fix the data directory's permissions`,
  });
  await store.close();
});
