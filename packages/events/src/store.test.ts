import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonFileEventsStore } from './store.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('JsonFileEventsStore', () => {
  it('writes atomically, 0600 for secrets, and reads back', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-events-'));
    const store = new JsonFileEventsStore(join(dir, 'data'));
    expect(await store.read('webhooks')).toBeUndefined();
    await Promise.all([
      store.write('webhooks', { n: 1 }, { secret: true }),
      store.write('webhooks', { n: 2 }, { secret: true }),
    ]);
    expect(await store.read('webhooks')).toEqual({ n: 2 });
    expect((await stat(join(dir, 'data', 'webhooks.json'))).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'data'))).toEqual(['webhooks.json']);
    await expect(store.write('../x', {})).rejects.toThrow(/invalid key/);
  });
});
