import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'PolicyGate',
    'REQUEST_TIMEOUT_CODE',
    'UPSTREAM_UNAVAILABLE_CODE',
    'createAggregator',
    'createPolicyGate',
    'createProxyServer',
    'forwardForAgent',
    'listenStreamSubscriptions',
    'toJsonRpcError',
    'upstreamUnavailableError',
  ]);
});
