import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefixName, splitName } from './exposedName.js';
import { isValidUpstreamName } from './upstreamName.js';

/** Valid upstream names, with the edge cases spelled out. */
const upstreamNames = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/).filter(isValidUpstreamName),
  fc.constantFrom('a', 'a-', 'a_b', 'a-_-_b', 'z'.repeat(32), 'fs'),
);

/** Original names: anything, with extra weight on underscores, `__` and unicode. */
const originalNames = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom('_', '__', 'a', '-', 'é', '\u{1F600}') }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.constantFrom('', '_', '__', '___x', 'b__c', 'read_file'),
);

describe('prefixName / splitName (A1)', () => {
  it('prefixes with __ and splits on the first __', () => {
    expect(prefixName('filesystem', 'read_file')).toBe('filesystem__read_file');
    expect(splitName('filesystem__read_file')).toEqual({ upstream: 'filesystem', name: 'read_file' });
    expect(splitName('a__b__c')).toEqual({ upstream: 'a', name: 'b__c' });
    expect(splitName('a___x')).toEqual({ upstream: 'a', name: '_x' });
    expect(splitName('a-__x')).toEqual({ upstream: 'a-', name: 'x' });
    expect(splitName('a__')).toEqual({ upstream: 'a', name: '' });
  });

  it('prefixName rejects an invalid upstream name', () => {
    expect(() => prefixName('Search', 'x')).toThrow(
      expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }),
    );
    expect(() => prefixName('a_', 'x')).toThrow(expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }));
  });

  it.each([
    ['read_file', 'it contains no "__"'],
    ['', 'it contains no "__"'],
    ['__x', 'the part before the first "__", "", is not a valid upstream name'],
    ['Fs__x', 'the part before the first "__", "Fs", is not a valid upstream name'],
    ['1a__x', 'the part before the first "__", "1a", is not a valid upstream name'],
  ])('splitName(%j) throws MCPP_NS_NOT_NAMESPACED', (exposed, reason) => {
    expect(() => splitName(exposed)).toThrow(
      expect.objectContaining({
        code: 'MCPP_NS_NOT_NAMESPACED',
        message: `name ${JSON.stringify(exposed)} is not namespaced: expected "<upstream>__<name>" (${reason})`,
        data: { exposed },
      }),
    );
  });

  it('round-trips: splitName(prefixName(u, n)) is {u, n} for every valid u and any n', () => {
    fc.assert(
      fc.property(upstreamNames, originalNames, (upstream, name) => {
        expect(splitName(prefixName(upstream, name))).toEqual({ upstream, name });
      }),
      { numRuns: 2000 },
    );
  });

  it('splitName is the inverse of prefixName on its whole domain', () => {
    const exposed = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', '_', '__', '-', 'A', '1') }),
      fc.tuple(upstreamNames, originalNames).map(([u, n]) => `${u}__${n}`),
    );
    fc.assert(
      fc.property(exposed, (s) => {
        let parts: { upstream: string; name: string };
        try {
          parts = splitName(s);
        } catch (err) {
          expect(err).toMatchObject({ code: 'MCPP_NS_NOT_NAMESPACED' });
          return;
        }
        expect(prefixName(parts.upstream, parts.name)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });
});
