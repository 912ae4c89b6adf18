import { isMcpPipeError } from '@mcppipe/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidUpstreamName, validateUpstreamName, validateUpstreamNames } from './upstreamName.js';

/** Characters that make name rules interesting: the allowed ones, uppercase, separators, unicode. */
const nameChar = fc.constantFrom(...'abcz09_-_-A./ é'.split(''), 'ı', '\u{1F600}');

describe('isValidUpstreamName / validateUpstreamName (A6)', () => {
  it.each(['a', 'filesystem', 'search', 'a-b_c9', 'a-', 'a_b-_c', 'x'.repeat(32), 'gh-2'])(
    'accepts %j',
    (name) => {
      expect(isValidUpstreamName(name)).toBe(true);
      expect(() => validateUpstreamName(name)).not.toThrow();
    },
  );

  it.each([
    ['', 'empty'],
    ['Search', 'uppercase'],
    ['1password', 'starts with a digit'],
    ['-a', 'starts with a hyphen'],
    ['_a', 'starts with an underscore'],
    ['my__server', 'contains the separator'],
    ['a___b', 'contains the separator'],
    ['a_', 'ends with _ (a_ + x and a + _x would both be a___x)'],
    ['x'.repeat(33), '33 characters'],
    ['my server', 'a space'],
    ['café', 'non-ASCII'],
    ['a\n', 'a trailing newline ($ must not match before it)'],
  ])('rejects %j (%s)', (name) => {
    expect(isValidUpstreamName(name)).toBe(false);
    expect(() => validateUpstreamName(name)).toThrow(
      expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }),
    );
  });

  it('quotes the name and the rule', () => {
    let caught: unknown;
    try {
      validateUpstreamName('Search');
    } catch (err) {
      caught = err;
    }
    expect(isMcpPipeError(caught, 'MCPP_NS_INVALID_NAME')).toBe(true);
    expect((caught as Error).message).toBe(
      'upstream name "Search" is invalid: must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"',
    );
    expect((caught as { data: unknown }).data).toEqual({ name: 'Search' });
  });

  it('escapes control characters and cuts long names in the message', () => {
    expect(() => validateUpstreamName('a\nb')).toThrow('upstream name "a\\nb" is invalid');
    expect(() => validateUpstreamName('A'.repeat(500))).toThrow(/"A{200}"… \(500 characters\) is invalid/);
  });

  it('agrees with the rule written out, for every string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: nameChar, maxLength: 40 }), fc.string()), (name) => {
        const expected = /^[a-z][a-z0-9_-]{0,31}$/.test(name) && !name.includes('__') && !name.endsWith('_');
        expect(isValidUpstreamName(name)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('validateUpstreamNames (A6: duplicates are rejected loudly)', () => {
  it('accepts unique valid names, and no names', () => {
    expect(() => validateUpstreamNames(['search', 'filesystem', 'gh'])).not.toThrow();
    expect(() => validateUpstreamNames([])).not.toThrow();
    expect(() => validateUpstreamNames(new Set(['a', 'b']))).not.toThrow();
  });

  it('throws MCPP_NS_DUPLICATE_NAME naming the duplicate and its count', () => {
    expect(() => validateUpstreamNames(['search', 'fs', 'search', 'search'])).toThrow(
      expect.objectContaining({
        code: 'MCPP_NS_DUPLICATE_NAME',
        message: 'upstream name "search" is used 3 times: upstream names must be unique within a layout',
        data: { name: 'search', count: 3 },
      }),
    );
  });

  it('reports an invalid name before a duplicate', () => {
    expect(() => validateUpstreamNames(['a', 'a', 'Bad'])).toThrow(
      expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }),
    );
  });
});
