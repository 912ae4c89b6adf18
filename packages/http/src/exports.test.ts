import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'BodyError',
    'HTTP_TIMEOUTS',
    'MAX_JSON_DEPTH',
    'OVERSIZE_DRAIN',
    'SERIALIZED_RESULT',
    'SHARED_MODERN_SERVER',
    'SessionTable',
    'createHostOriginPolicy',
    'createMcpHttpHost',
    'depthMessage',
    'drainRefusedBody',
    'exceedsDepth',
    'isInitializeBody',
    'isLoopbackHost',
    'parseCidr',
    'readJsonBody',
    'sendJsonRpcError',
    'serverTimeoutOptions',
  ]);
  expect(api.MAX_JSON_DEPTH).toBe(100);
  expect(api.HTTP_TIMEOUTS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
  // registered symbols: producers (the aggregator) mark results and servers without importing this package
  expect(api.SERIALIZED_RESULT).toBe(Symbol.for('@mcppipe/serialized-result'));
  expect(api.SHARED_MODERN_SERVER).toBe(Symbol.for('mcppipe.sharedModernServer'));
});
