import { describe, expect, it } from 'vitest';
import { McpPipeError, isMcpPipeError, isMcpPipeErrorCode } from './mcpPipeError.js';

describe('McpPipeError', () => {
  it('carries code, data and cause', () => {
    const cause = new Error('root');
    const err = new McpPipeError('MCPP_NS_INVALID_NAME', 'bad', { data: { name: 'X' }, cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('McpPipeError');
    expect(err.code).toBe('MCPP_NS_INVALID_NAME');
    expect(err.data).toEqual({ name: 'X' });
    expect(err.cause).toBe(cause);
    expect(err.message).toBe('bad');
  });

  it('has no cause property when none is given', () => {
    expect('cause' in new McpPipeError('MCPP_CLI_USAGE', 'x')).toBe(false);
  });

  it('narrows by code', () => {
    const err: unknown = new McpPipeError('MCPP_CFG_INVALID', 'x');
    expect(isMcpPipeError(err)).toBe(true);
    expect(isMcpPipeError(err, 'MCPP_CFG_INVALID')).toBe(true);
    expect(isMcpPipeError(err, 'MCPP_NS_INVALID_NAME')).toBe(false);
    expect(isMcpPipeError(new Error('x'))).toBe(false);
  });

  it('knows its codes', () => {
    expect(isMcpPipeErrorCode('MCPP_SUP_EXITED')).toBe(true);
    expect(isMcpPipeErrorCode('toString')).toBe(false);
  });
});
