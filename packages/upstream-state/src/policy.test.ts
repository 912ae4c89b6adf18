import { isMcpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import { aggregatorPolicy, gatewayPolicy, validatePolicy } from './policy.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isMcpPipeError(err) ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
}

describe('aggregatorPolicy', () => {
  it('has the A12 numbers by default', () => {
    const p = aggregatorPolicy({}, {});
    expect(p).toMatchObject({
      name: 'aggregator',
      tripThreshold: 3,
      tripWindowMs: 30_000,
      maxBackoffMs: 30_000,
      maxAttempts: 20,
      failedAfterMs: 300_000,
      backoffMultiplier: 2,
    });
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('reads MCPPIPE_UPSTREAM_MAX_ATTEMPTS and MCPPIPE_UPSTREAM_FAILED_AFTER_SECS', () => {
    const p = aggregatorPolicy(
      {},
      { MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '5', MCPPIPE_UPSTREAM_FAILED_AFTER_SECS: '12.5' },
    );
    expect(p.maxAttempts).toBe(5);
    expect(p.failedAfterMs).toBe(12_500);
  });

  it('overrides win over the environment', () => {
    expect(aggregatorPolicy({ maxAttempts: 2 }, { MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '5' }).maxAttempts).toBe(2);
  });

  it.each([
    ['MCPPIPE_UPSTREAM_MAX_ATTEMPTS', 'abc'],
    ['MCPPIPE_UPSTREAM_MAX_ATTEMPTS', '0'],
    ['MCPPIPE_UPSTREAM_MAX_ATTEMPTS', '-1'],
    ['MCPPIPE_UPSTREAM_MAX_ATTEMPTS', '2.5'],
    ['MCPPIPE_UPSTREAM_MAX_ATTEMPTS', ''],
    ['MCPPIPE_UPSTREAM_FAILED_AFTER_SECS', '5m'],
    ['MCPPIPE_UPSTREAM_FAILED_AFTER_SECS', '0'],
    ['MCPPIPE_UPSTREAM_FAILED_AFTER_SECS', 'Infinity'],
  ])('rejects %s=%j at startup with a coded error naming the variable', (name, value) => {
    const result = codeOf(() => aggregatorPolicy({}, { [name]: value }));
    expect(result).toMatch(/^MCPP_STATE_INVALID_POLICY: /);
    expect(result).toContain(name);
  });
});

describe('gatewayPolicy', () => {
  it('has the G8 numbers', () => {
    expect(gatewayPolicy()).toMatchObject({
      name: 'gateway',
      initialBackoffMs: 1_000,
      maxBackoffMs: 300_000,
      maxAttempts: Infinity,
      failedAfterMs: Infinity,
      backoffResetAfterMs: 300_000,
      probeIntervalMs: 60_000,
      probeTimeoutMs: 30_000,
    });
  });
});

describe('validatePolicy', () => {
  it.each([
    ['tripThreshold', 0],
    ['tripWindowMs', -1],
    ['initialBackoffMs', 0],
    ['backoffMultiplier', 0.5],
    ['maxBackoffMs', 10],
    ['jitterRatio', 1],
    ['maxAttempts', 1.5],
    ['failedAfterMs', Number.NaN],
    ['probeIntervalMs', -5],
    ['probeTimeoutMs', Infinity],
  ])('rejects %s = %s', (field, value) => {
    const result = codeOf(() => validatePolicy({ ...gatewayPolicy(), [field]: value }));
    expect(result).toMatch(new RegExp(`^MCPP_STATE_INVALID_POLICY: ${field}:`));
  });

  it('accepts probeIntervalMs 0 (probing disabled)', () => {
    expect(validatePolicy({ ...gatewayPolicy(), probeIntervalMs: 0 }).probeIntervalMs).toBe(0);
  });
});
