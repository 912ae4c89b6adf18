import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ENV_FAILED_AFTER_SECS",
        "ENV_MAX_ATTEMPTS",
        "Lifecycle",
        "VirtualClock",
        "aggregatorPolicy",
        "backoffDelay",
        "gatewayPolicy",
        "initialTransition",
        "nextRandom",
        "systemClock",
        "transition",
        "validatePolicy",
      ]
    `);
  });
});
