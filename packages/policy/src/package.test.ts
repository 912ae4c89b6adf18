import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ANONYMOUS",
        "DEFAULT_MAX_BUCKETS",
        "MemoryBucketStore",
        "RATE_LIMITED_CODE",
        "compilePolicy",
        "createLimiter",
        "parseRate",
        "rateLimitedError",
        "rateLimitedWireError",
        "retryAfterHeader",
        "validatePolicyConfig",
      ]
    `);
  });
});
