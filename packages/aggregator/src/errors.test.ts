import { McpPipeError } from '@mcppipe/errors';
import { splitName } from '@mcppipe/namespace';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { toJsonRpcError, unknownNameError } from './errors.js';

const wire = (err: ProtocolError) => ({ code: err.code, message: err.message, data: err.data });

describe('toJsonRpcError', () => {
  it('passes an upstream JSON-RPC error through unchanged', () => {
    const upstream = new ProtocolError(-32099, 'custom', { x: 1 });
    expect(toJsonRpcError(upstream, 'a')).toBe(upstream);
  });

  it('maps MCPP_SUP_UNAVAILABLE to -32000 upstream_unavailable naming the upstream', () => {
    const err = new McpPipeError('MCPP_SUP_UNAVAILABLE', 'x', {
      data: { upstream: 'search', phase: 'recovering', retryAfterMs: 4000 },
    });
    expect(wire(toJsonRpcError(err))).toEqual({
      code: -32000,
      message: 'upstream_unavailable: upstream "search" is recovering; retry in 4 s',
      data: { upstream: 'search', phase: 'recovering', retryAfterMs: 4000 },
    });
    const failed = new McpPipeError('MCPP_SUP_UNAVAILABLE', 'x', {
      data: { upstream: 'fs', phase: 'failed' },
    });
    expect(wire(toJsonRpcError(failed))).toEqual({
      code: -32000,
      message:
        'upstream_unavailable: upstream "fs" is failed; recovery gave up, a new session (initialize) retries it',
      data: { upstream: 'fs', phase: 'failed' },
    });
  });

  it('maps unknown names and codec errors to -32602 naming the input', () => {
    const unknown = toJsonRpcError(unknownNameError('tool', 'gh__nope'));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toBe('Unknown tool: "gh__nope"');
    let codec: unknown;
    try {
      splitName('read_file');
    } catch (err) {
      codec = err;
    }
    expect(toJsonRpcError(codec).code).toBe(-32602);
    expect(toJsonRpcError(codec).message).toContain('read_file');
    expect(toJsonRpcError(new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', 'no upstream named "x"')).code).toBe(
      -32602,
    );
  });

  it('C4: an agent request that could not be serialized (MCPP_SUP_BAD_REQUEST) is -32602 without internal text', () => {
    const err = new McpPipeError(
      'MCPP_SUP_BAD_REQUEST',
      'the request to upstream "a" could not be sent: it nests too deeply or is too large; send flatter, smaller arguments',
      {
        cause: new RangeError('Maximum call stack size exceeded'),
        data: { upstream: 'a' },
      },
    );
    const mapped = toJsonRpcError(err, 'a');
    expect(mapped.code).toBe(-32602);
    expect(mapped.message).toContain('nests too deeply');
    expect(mapped.message).not.toContain('call stack');
  });

  it('maps timeouts, closed connections and anything else, naming the upstream', () => {
    const timeout = toJsonRpcError(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), 'slow');
    expect(wire(timeout)).toEqual({
      code: -32001,
      message: 'upstream "slow": request timed out',
      data: { upstream: 'slow' },
    });
    const closed = toJsonRpcError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), 'gone');
    expect(closed.code).toBe(-32000);
    expect(closed.data).toEqual({ upstream: 'gone', phase: 'recovering' });
    expect(wire(toJsonRpcError(new Error('boom'), 'x'))).toEqual({
      code: -32603,
      message: 'upstream "x": boom',
      data: undefined,
    });
    expect(toJsonRpcError('weird').code).toBe(-32603);
  });

  it('a stopped or disconnected upstream reports one of the four phases, as its state machine says', () => {
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(wire(toJsonRpcError(closed, 'gone', { phase: 'connecting', retryAfterMs: 0 }))).toEqual({
      code: -32000,
      message: 'upstream_unavailable: upstream "gone" is connecting; reconnecting now',
      data: { upstream: 'gone', phase: 'connecting', retryAfterMs: 0 },
    });
    // the machine has not seen the loss yet: the upstream is about to recover
    expect(wire(toJsonRpcError(closed, 'gone', { phase: 'available' }))).toEqual({
      code: -32000,
      message: 'upstream_unavailable: upstream "gone" is recovering',
      data: { upstream: 'gone', phase: 'recovering' },
    });
    const stopped = new McpPipeError('MCPP_SUP_STOPPED', 'the supervisor was stopped');
    expect(wire(toJsonRpcError(stopped, 'fs'))).toEqual({
      code: -32000,
      message: 'upstream_unavailable: upstream "fs" is recovering',
      data: { upstream: 'fs', phase: 'recovering' },
    });
    expect(wire(toJsonRpcError(stopped, 'fs', { phase: 'recovering', retryAfterMs: 2500 }))).toEqual({
      code: -32000,
      message: 'upstream_unavailable: upstream "fs" is recovering; retry in 3 s',
      data: { upstream: 'fs', phase: 'recovering', retryAfterMs: 2500 },
    });
    // a failed upstream has no retry time, whatever the snapshot's field holds
    expect(toJsonRpcError(closed, 'fs', { phase: 'failed', retryAfterMs: 9 }).data).toEqual({
      upstream: 'fs',
      phase: 'failed',
    });
  });
});
