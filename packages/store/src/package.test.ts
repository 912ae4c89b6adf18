import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_COLLECTIONS",
        "DEFAULT_KEY_PREFIX",
        "REDIS_URL_ENV",
        "RedisBucketStore",
        "RedisStore",
        "STATE_FILE",
        "fsyncDir",
        "openFileStore",
        "openRedisStore",
        "openRing",
        "openStore",
        "redactRedisUrl",
        "removeStrayTempFiles",
        "writeFileAtomic",
      ]
    `);
  });
});
