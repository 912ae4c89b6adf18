import { isMcpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('public surface', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'BoundedRing',
      'DEFAULT_BODY_CAP_BYTES',
      'DEFAULT_RING_MAX_BYTES',
      'DEFAULT_RING_MAX_EXCHANGES',
      'ExchangeCapture',
      'HISTOGRAM_BINS',
      'REDACTED',
      'ToolStats',
      'binOf',
      'binValue',
      'classifyStatus',
      'parseExchange',
      'percentiles',
      'redactMessage',
      'redactValue',
      'replayRequestHeaders',
      'responseMessages',
      'restoreRedacted',
      'runReplay',
      'tapExchange',
      'teeExchange',
      'upstreamOf',
    ]);
  });
});

describe('typed errors', () => {
  it('invalid ring bounds and body cap throw MCPP_CAPTURE_INVALID_OPTIONS naming the option', () => {
    for (const [options, name] of [
      [{ maxExchanges: 0 }, 'maxCount'],
      [{ maxBytes: 1.5 }, 'maxBytes'],
      [{ bodyCapBytes: -1 }, 'bodyCapBytes'],
      [{ maxExchanges: Number('x') }, 'maxCount'],
    ] as const) {
      let error: unknown;
      try {
        new api.ExchangeCapture(options);
      } catch (err) {
        error = err;
      }
      expect(isMcpPipeError(error, 'MCPP_CAPTURE_INVALID_OPTIONS')).toBe(true);
      expect((error as { data: { name: string } }).data.name).toBe(name);
    }
    expect(() => new api.BoundedRing(1, 0)).toThrow(/maxBytes must be a positive integer, got 0/);
  });

  it('a replay with an edited request that is not a JSON-RPC message throws MCPP_CAPTURE_INVALID_REQUEST', async () => {
    const capture = new api.ExchangeCapture();
    const send = () => Promise.reject(new Error('not sent'));
    for (const request of ['text', 42, null, []]) {
      const replay = capture.replay('t', 'ex_x', { send, request, caller: null, zeroKnowledge: false });
      await expect(replay).rejects.toMatchObject({ code: 'MCPP_CAPTURE_INVALID_REQUEST' });
    }
    // a valid edit of an unknown exchange is not an error: there is nothing to replay
    await expect(
      capture.replay('t', 'ex_x', { send, request: { method: 'ping' }, caller: null, zeroKnowledge: false }),
    ).resolves.toBeUndefined();
  });
});
