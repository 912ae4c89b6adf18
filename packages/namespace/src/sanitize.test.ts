import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeUpstreamName, sanitizeUpstreamNames } from './sanitize.js';
import { isValidUpstreamName } from './upstreamName.js';

const keys = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom('a', 'B', '_', '__', '-', '1', ' ', '.', 'é', 'İ', '\u{1F600}'),
    maxLength: 40,
  }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
);

describe('sanitizeUpstreamName (A11)', () => {
  it.each([
    ['GitHub Copilot', 'github-copilot'],
    ['github', 'github'],
    ['my__server', 'my_server'],
    ['my____server', 'my_server'],
    ['1password', 'srv-1password'],
    ['-x', 'srv--x'],
    ['_x', 'srv-_x'],
    ['', 'srv-'],
    ['__', 'srv-'],
    ['Ünïcode', '-n-code'.replace(/^/, 'srv-')],
    ['@scope/server.name', 'srv--scope-server-name'],
    ['\u{1F600}x', 'srv--x'],
    ['trailing_', 'trailing'],
    ['a'.repeat(31) + '_b', 'a'.repeat(31)],
    ['A'.repeat(40), 'a'.repeat(32)],
  ])('%j → %j', (key, name) => {
    expect(sanitizeUpstreamName(key)).toBe(name);
    expect(isValidUpstreamName(name)).toBe(true);
  });

  it('always gives a valid name, is idempotent, and keeps valid names', () => {
    fc.assert(
      fc.property(keys, (key) => {
        const name = sanitizeUpstreamName(key);
        expect(isValidUpstreamName(name)).toBe(true);
        expect(sanitizeUpstreamName(name)).toBe(name);
        if (isValidUpstreamName(key)) expect(name).toBe(key);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('sanitizeUpstreamNames (A11)', () => {
  it('makes names unique and reports renames', () => {
    expect(sanitizeUpstreamNames(['GitHub', 'github', 'my files'])).toEqual({
      names: ['github-2', 'github', 'my-files'],
      renames: [
        { key: 'GitHub', name: 'github-2' },
        { key: 'my files', name: 'my-files' },
      ],
    });
    expect(sanitizeUpstreamNames([])).toEqual({ names: [], renames: [] });
  });

  it('skips numbered names that are taken, and stays within 32 characters', () => {
    expect(sanitizeUpstreamNames(['A', 'a', 'a-2', 'a-3']).names).toEqual(['a-4', 'a', 'a-2', 'a-3']);
    expect(sanitizeUpstreamNames(['A', 'a!', 'a']).names).toEqual(['a-2', 'a-', 'a']);
    const long = 'x'.repeat(32);
    const { names } = sanitizeUpstreamNames([long, long.toUpperCase(), `${long}!`]);
    expect(names).toEqual([long, `${'x'.repeat(30)}-2`, `${'x'.repeat(30)}-3`]);
    expect(sanitizeUpstreamNames(['ab_c_d', 'AB_C_D']).names).toEqual(['ab_c_d', 'ab_c_d-2']);
    const cutBeforeUnderscore = `${'x'.repeat(29)}_yy`;
    expect(sanitizeUpstreamNames([cutBeforeUnderscore, cutBeforeUnderscore.toUpperCase()]).names).toEqual([
      cutBeforeUnderscore,
      `${'x'.repeat(29)}-2`,
    ]);
  });

  it('gives equal keys distinct names in order of appearance; other keys by code-unit order', () => {
    expect(sanitizeUpstreamNames(['fs', 'fs', 'Fs', 'fs'])).toEqual({
      names: ['fs', 'fs-3', 'fs-2', 'fs-4'],
      renames: [
        { key: 'fs', name: 'fs-3' },
        { key: 'Fs', name: 'fs-2' },
        { key: 'fs', name: 'fs-4' },
      ],
    });
  });

  it('gives valid, unique names; renames are exactly the changed keys', () => {
    fc.assert(
      fc.property(fc.array(keys, { maxLength: 30 }), (ks) => {
        const { names, renames } = sanitizeUpstreamNames(ks);
        expect(names).toHaveLength(ks.length);
        for (const name of names) expect(isValidUpstreamName(name)).toBe(true);
        expect(new Set(names).size).toBe(names.length);
        expect(renames).toEqual(ks.flatMap((key, i) => (names[i] === key ? [] : [{ key, name: names[i] }])));
      }),
      { numRuns: 1000 },
    );
  });

  it('maps each key the same way whatever the order of the keys', () => {
    const distinctKeys = fc.uniqueArray(
      fc.string({ unit: fc.constantFrom('a', 'A', '_', '-', '2', ' ', 'b'), maxLength: 6 }),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(
        distinctKeys.chain((ks) =>
          fc.tuple(fc.constant(ks), fc.shuffledSubarray(ks, { minLength: ks.length })),
        ),
        ([ks, shuffled]) => {
          const mapping = (list: string[]) => {
            const { names } = sanitizeUpstreamNames(list);
            return new Map(list.map((key, i) => [key, names[i]]));
          };
          expect(mapping(shuffled)).toEqual(mapping(ks));
        },
      ),
      { numRuns: 500 },
    );
  });
});
