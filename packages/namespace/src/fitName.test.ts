import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exposedNameLimits } from './defaults.js';
import { prefixName, splitName } from './exposedName.js';
import { fitName, fitNames, shortHash } from './fitName.js';
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
/** What model APIs accept as a tool name (DESIGN.md A15). */
const MODEL_API_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const maxLengths = fc.constantFrom(exposedNameLimits.default, exposedNameLimits.cursor, 43);

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

  it('never cuts a surrogate pair: each code point outside [A-Za-z0-9_-] becomes one "_"', () => {
    const fitted = fitName('a', '\u{1F600}'.repeat(40));
    expect(fitted).toBe(`a__${'_'.repeat(40)}-${shortHash(`a__${'\u{1F600}'.repeat(40)}`)}`);
  });

  it('rewrites characters model APIs reject, keeping the budget (A15)', () => {
    expect(fitName('cal', 'calendar.read')).toBe(`cal__calendar_read-${shortHash('cal__calendar.read')}`);
    expect(fitName('cal', 'weekly report')).toBe(`cal__weekly_report-${shortHash('cal__weekly report')}`);
    expect(fitName('cal', 'café')).toBe(`cal__caf_-${shortHash('cal__café')}`);
    expect(fitName('cal', 'a-B_9')).toBe('cal__a-B_9');
    expect(fitName('cal', '')).toBe('cal__');
    const long = `${'x.'.repeat(40)}`;
    const fitted = fitName('cal', long);
    expect(fitted).toHaveLength(64);
    expect(fitted).toBe(`cal__${'x_'.repeat(25)}-${shortHash(`cal__${long}`)}`);
    expect(splitName(fitted).upstream).toBe('cal');
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
        expect(fitted).toMatch(MODEL_API_NAME);
        const full = prefixName(upstream, name);
        if (full.length <= maxLength && /^[A-Za-z0-9_-]*$/.test(name)) expect(fitted).toBe(full);
        else expect(fitted).toMatch(/-[0-9a-z]{8}$/);
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

describe('fitNames', () => {
  it('keeps valid names, rewrites the others, and never maps two names to one (crafted collision)', () => {
    const dotted = fitName('u', 'a.b'); // what a.b would get alone
    const lookalike = dotted.slice('u__'.length); // an upstream tool literally named like it
    const spaced = fitName('u', 'a b');
    const names = ['a.b', 'a_b', 'a-b', lookalike, 'a b', spaced.slice(3)];
    const table = fitNames('u', names);
    expect([...table.keys()]).toEqual(names);
    expect(table.get('a_b')).toBe('u__a_b');
    expect(table.get('a-b')).toBe('u__a-b');
    expect(table.get(lookalike)).toBe(dotted); // valid names keep exactly their name
    expect(table.get('a.b')).toBe(`u__a_b-${shortHash('u__a.b\u00001')}`); // the next hash
    expect(table.get('a b')).toBe(`u__a_b-${shortHash('u__a b\u00001')}`);
    expect(new Set(table.values()).size).toBe(names.length);
    for (const exposed of table.values()) expect(exposed).toMatch(MODEL_API_NAME);
  });

  it('gives each name what fitName gives it when nothing collides', () => {
    const names = ['calendar.read', 'weekly report', 'x'.repeat(70), 'ok_name'];
    const table = fitNames('cal', names);
    for (const name of names) expect(table.get(name)).toBe(fitName('cal', name));
  });

  it('checks its inputs like fitName', () => {
    expect(() => fitNames('A', ['x'])).toThrow(expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }));
    expect(() => fitNames('github', ['x'], { maxLength: 16 })).toThrow(RangeError);
  });

  it('is valid, injective, order-independent, and round-trips through its table (property)', () => {
    const crafted = fc.constantFrom('a.b', 'a_b', 'a-b', 'a b', 'a__b', '', '.', '_', 'é');
    const pieces = fc.oneof(names, crafted, fc.stringMatching(/^[a-z_.-]{0,70}$/));
    fc.assert(
      fc.property(upstreamNames, fc.array(pieces, { maxLength: 30 }), maxLengths, (upstream, list, max) => {
        // add lookalikes: the rewritten forms of some names, as original names of the same upstream
        const lookalikes = list
          .slice(0, 3)
          .map((n) => fitName(upstream, n, { maxLength: max }).slice(upstream.length + 2));
        const all = [...list, ...lookalikes];
        const table = fitNames(upstream, all, { maxLength: max });
        expect(new Set(table.keys())).toEqual(new Set(all));
        const exposed = [...table.values()];
        expect(new Set(exposed).size).toBe(table.size);
        const back = new Map(exposed.map((e, i) => [e, [...table.keys()][i]]));
        for (const [original, e] of table) {
          expect(e).toMatch(MODEL_API_NAME);
          expect(e.length).toBeLessThanOrEqual(max);
          expect(splitName(e).upstream).toBe(upstream);
          expect(back.get(e)).toBe(original);
          if (original.length + upstream.length + 2 <= max && /^[A-Za-z0-9_-]*$/.test(original))
            expect(e).toBe(prefixName(upstream, original));
        }
        const reversed = fitNames(upstream, [...all].reverse(), { maxLength: max });
        for (const [original, e] of table) expect(reversed.get(original)).toBe(e);
      }),
      { numRuns: 500 },
    );
  });
});
