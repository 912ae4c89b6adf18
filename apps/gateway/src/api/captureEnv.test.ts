// The capture's environment (issue 19 D3): each value is read once at start, and a bad one is a usage error naming
// the variable and what was given (exit 2), never a NaN passed on.
import { describe, expect, it } from 'vitest';
import { captureOptions } from './exchangesApi.js';

describe('captureOptions (MCPPIPE_CAPTURE_*)', () => {
  it('reads counts and byte sizes (units too); unset keeps the defaults; off turns the capture off', () => {
    expect(captureOptions({})).toEqual({});
    expect(
      captureOptions({
        MCPPIPE_CAPTURE_MAX_EXCHANGES: '500',
        MCPPIPE_CAPTURE_MAX_BYTES: '4mb',
        MCPPIPE_CAPTURE_BODY_CAP_BYTES: '0',
      }),
    ).toEqual({ maxExchanges: 500, maxBytes: 4 * 1024 * 1024, bodyCapBytes: 0 });
    expect(captureOptions({ MCPPIPE_CAPTURE: 'off', MCPPIPE_CAPTURE_MAX_EXCHANGES: 'abc' })).toBe(false);
  });

  it.each([
    ['MCPPIPE_CAPTURE_MAX_EXCHANGES', 'abc', 'is not a count of exchanges (a whole number, e.g. 1000)'],
    ['MCPPIPE_CAPTURE_MAX_EXCHANGES', '1.5', 'is not a count of exchanges (a whole number, e.g. 1000)'],
    ['MCPPIPE_CAPTURE_MAX_EXCHANGES', '0', 'is not a count of exchanges (a whole number, e.g. 1000)'],
    ['MCPPIPE_CAPTURE_MAX_BYTES', '16 megs', 'is not a size in bytes (e.g. 4194304 or 4mb)'],
    ['MCPPIPE_CAPTURE_BODY_CAP_BYTES', '-1', 'is not a size in bytes (e.g. 4194304 or 4mb)'],
  ])('%s=%s is refused with MCPP_CLI_USAGE naming it', (name, value, says) => {
    expect(() => captureOptions({ [name]: value })).toThrow(
      expect.objectContaining({ code: 'MCPP_CLI_USAGE', message: `${name}: "${value}" ${says}` }),
    );
  });
});
