import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from './openStore.js';

it('picks the file without --redis or MCPPIPE_REDIS_URL, refuses a non-redis URL, redacts the password', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcppipe-open-'));
  const file = await openStore({ dataDir: dir, env: {} });
  expect(file.kind).toBe('file');
  await file.close();
  await expect(
    openStore({ dataDir: dir, env: { MCPPIPE_REDIS_URL: 'http://x:6379' } }),
  ).rejects.toMatchObject({
    code: 'MCPP_STORE_INVALID_OPTIONS',
    message: '--redis / MCPPIPE_REDIS_URL: scheme "http:" is not redis: or rediss:',
  });
  // nothing listens on port 1: a clean refusal that never shows the password
  const err = await openStore({
    dataDir: dir,
    redisUrl: 'redis://u:s3cret@127.0.0.1:1',
    connectTimeoutMs: 2000,
  }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'MCPP_STORE_UNAVAILABLE' });
  expect((err as Error).message).toContain('redis://u:***@127.0.0.1:1');
  expect((err as Error).message).not.toContain('s3cret');
  await rm(dir, { recursive: true, force: true });
});
