import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'BodyError',
    'SERIALIZED_RESULT',
    'SHARED_MODERN_SERVER',
    'SessionTable',
    'createMcpHttpHost',
    'isInitializeBody',
    'readJsonBody',
    'sendJsonRpcError',
  ]);
  // registered symbols: producers (the aggregator) mark results and servers without importing this package
  expect(api.SERIALIZED_RESULT).toBe(Symbol.for('@mcppipe/serialized-result'));
  expect(api.SHARED_MODERN_SERVER).toBe(Symbol.for('mcppipe.sharedModernServer'));
});
