import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exposedNameLimits } from './defaults.js';
import { prefixName, splitName } from './exposedName.js';
import { fitName, shortHash } from './fitName.js';
import { isValidUpstreamName } from './upstreamName.js';

const upstreamNames = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/).filter(isValidUpstreamName),
  fc.constantFrom('a', 'github', 'z'.repeat(32)),
);
const names = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('a', '_', '__', '\u{1F600}', 'é'), maxLength: 80 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
);
const maxLengths = fc.constantFrom(exposedNameLimits.default, exposedNameLimits.cursor, 43, 100);

describe('fitName', () => {
  it('returns prefixName when it fits', () => {
    expect(fitName('gh', 'read_file')).toBe('gh__read_file');
    const exact = 'x'.repeat(64 - 'gh__'.length);
    expect(fitName('gh', exact)).toBe(`gh__${exact}`);
  });

  it('shortens to <upstream>__<head>-<hash8>, at most maxLength', () => {
    const long = 'list_all_repository_collaborators_with_their_permissions_and_invitations';
    const fitted = fitName('github', long);
    expect(fitted).toHaveLength(64);
    expect(fitted).toBe(`github__${long.slice(0, 64 - 8 - 9)}-${shortHash(`github__${long}`)}`);
    expect(fitted).toMatch(/^github__list_all_repository_collaborators_with_their_pe-[0-9a-z]{8}$/);
    const cursor = fitName('github', long, { maxLength: exposedNameLimits.cursor });
    expect(cursor).toHaveLength(60);
    expect(cursor.startsWith('github__list_all')).toBe(true);
    expect(splitName(cursor).upstream).toBe('github');
  });

  it('pins the hash (FNV-1a 64 over UTF-16LE, mod 36^8, base36; values computed independently)', () => {
    expect(shortHash('')).toBe('hzj4ux45');
    expect(shortHash('a')).toBe('fjfn1b6s');
    expect(shortHash('b')).toBe('nx25r7fj');
    expect(shortHash('github__x')).toBe('8kayoiso');
  });

  it('never cuts a surrogate pair', () => {
    const fitted = fitName('a', '\u{1F600}'.repeat(40));
    expect(fitted.length).toBeLessThanOrEqual(64);
    expect(/\p{Cs}/u.test(fitted)).toBe(false);
  });

  it('checks its inputs', () => {
    expect(() => fitName('A', 'x')).toThrow(expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }));
    expect(() => fitName('github', 'x', { maxLength: 16 })).toThrow(RangeError);
    expect(() => fitName('github', 'x', { maxLength: 16 })).toThrow(
      'fitName: maxLength must be an integer of at least 17 for upstream "github", got 16',
    );
    expect(() => fitName('github', 'x', { maxLength: 60.5 })).toThrow(RangeError);
    expect(() => fitName('github', 'x', { maxLength: Number.NaN })).toThrow(RangeError);
    expect(fitName('github', 'x'.repeat(20), { maxLength: 17 })).toMatch(/^github__-[0-9a-z]{8}$/);
  });

  it('is bounded, prefixed, deterministic, and the identity when the name fits', () => {
    fc.assert(
      fc.property(upstreamNames, names, maxLengths, (upstream, name, maxLength) => {
        const fitted = fitName(upstream, name, { maxLength });
        expect(fitted.length).toBeLessThanOrEqual(maxLength);
        expect(fitted.startsWith(`${upstream}__`)).toBe(true);
        expect(splitName(fitted).upstream).toBe(upstream);
        expect(fitName(upstream, name, { maxLength })).toBe(fitted);
        const full = prefixName(upstream, name);
        if (full.length <= maxLength) expect(fitted).toBe(full);
        else expect(fitted).toMatch(/-[0-9a-z]{8}$/);
        // Well-formed names stay well-formed.
        if (!/\p{Cs}/u.test(name)) expect(/\p{Cs}/u.test(fitted)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps distinct names distinct, even with a long common prefix', () => {
    const common = 'get_the_very_long_common_prefix_of_many_generated_tool_names_';
    fc.assert(
      fc.property(
        upstreamNames,
        fc.uniqueArray(fc.string({ minLength: 0, maxLength: 12 }), { minLength: 2, maxLength: 200 }),
        (upstream, suffixes) => {
          const fitted = suffixes.map((s) => fitName(upstream, common + s));
          expect(new Set(fitted).size).toBe(suffixes.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
