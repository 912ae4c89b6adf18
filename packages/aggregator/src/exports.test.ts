import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'PolicyGate',
    'REQUEST_TIMEOUT_CODE',
    'RelayGate',
    'UPSTREAM_UNAVAILABLE_CODE',
    'createAggregator',
    'createPolicyGate',
    'createProxyServer',
    'forwardForAgent',
    'listenStreamSubscriptions',
    'pinnedRegistry',
    'relayPolicyConfig',
    'relayRulesActive',
    'toJsonRpcError',
    'upstreamUnavailableError',
  ]);
});
