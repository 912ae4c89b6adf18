import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API (the docs/errors.md renderer is a repository script, not an export)', () => {
  expect(Object.keys(api).sort()).toEqual([
    'McpPipeError',
    'errorCodes',
    'isMcpPipeError',
    'isMcpPipeErrorCode',
  ]);
});
