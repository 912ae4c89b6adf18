import fc from 'fast-check';
import { parseTemplate } from 'url-template';
import { describe, expect, it } from 'vitest';
import { unwrapResourceTemplate, wrapResourceTemplate } from './resourceTemplate.js';
import { unwrapResourceUri, wrapResourceUri } from './resourceUri.js';
import { isValidUpstreamName } from './upstreamName.js';

/** The oracle: a real RFC 6570 expander. */
type Variables = Parameters<ReturnType<typeof parseTemplate>['expand']>[0];
const expand = (template: string, variables: Variables): string => parseTemplate(template).expand(variables);

const upstreamNames = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/).filter(isValidUpstreamName),
  fc.constantFrom('a', 'gh', 'a-', 'z'.repeat(32)),
);

const VARIABLE_NAMES = ['x', 'y', 'id', 'path', 'q', 'Owner_1'];
/** Characters that stress every operator: reserved, unreserved, '%' alone and in triplets, non-ASCII. */
const stressChar = fc.oneof(
  fc.constantFrom(...':/?#[]@!$&\'()*+,;=-._~ "<>\\^`|'.split(''), '%', '%2F', '%2f', '%25', '%zz', '%4'),
  fc.constantFrom('a', 'Z', '0', 'é', 'ß', '日', '\u{1F600}', '\uFEFF'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: stressChar, maxLength: 8 });
/** A literal part of a template: no braces. */
const literal = text.filter((s) => !/[{}]/.test(s));
const varspec = fc
  .tuple(fc.constantFrom(...VARIABLE_NAMES), fc.constantFrom('', '*', ':1', ':3', ':10'))
  .map(([name, modifier]) => name + modifier);
const expression = fc
  .tuple(
    fc.constantFrom('', '+', '#', '.', '/', ';', '?', '&'),
    fc.array(varspec, { minLength: 1, maxLength: 3 }),
  )
  .map(([operator, specs]) => `{${operator}${specs.join(',')}}`);
const scheme = fc.constantFrom('', 'file:///', 'ui://widget/', 'repo://', '/', 'mcppipe+t://inner/', 'x:');
const templates = fc
  .tuple(scheme, fc.array(fc.oneof(literal, expression, expression), { maxLength: 6 }))
  .map(([head, parts]) => head + parts.join(''));
const value = fc.oneof(
  text,
  fc.constant(''),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('k', 'a b', 'é', '%'), text, { maxKeys: 3 }),
);
const variables: fc.Arbitrary<Variables> = fc.dictionary(fc.constantFrom(...VARIABLE_NAMES), value, {
  maxKeys: 6,
});

/** expand(T, V), or the error the expander threw (it throws e.g. when `:n` cuts a surrogate pair). */
function tryExpand(template: string, vars: Variables): { ok: true; uri: string } | { ok: false } {
  try {
    return { ok: true, uri: expand(template, vars) };
  } catch {
    return { ok: false };
  }
}

describe('wrapResourceTemplate: expand(wrap(T), V) unwraps to expand(T, V)', () => {
  it('wraps as mcppipe+t://<upstream>/<template>, expressions untouched', () => {
    expect(wrapResourceTemplate('gh', 'repo://{owner}/{repo}/issues{/id}')).toBe(
      'mcppipe+t://gh/repo://{owner}/{repo}/issues{/id}',
    );
    expect(wrapResourceTemplate('gh', '')).toBe('mcppipe+t://gh/');
    expect(() => wrapResourceTemplate('GH', '{x}')).toThrow(
      expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }),
    );
  });

  it.each<[string, string, Variables, string]>([
    ['{x}', 'simple', { x: 'a b/c?d' }, 'a%20b%2Fc%3Fd'],
    ['file:///{+x}', 'reserved', { x: 'dir/a b.txt?%2F' }, 'file:///dir/a%20b.txt?%2F'],
    ['repo://r{/x*}', 'path segments', { x: ['a', 'b/c', ''] }, 'repo://r/a/b%2Fc/'],
    ['search://s{?x,y}', 'query', { x: 'a&b', y: ['1', '2'] }, 'search://s?x=a%26b&y=1,2'],
    ['doc://d{#x}', 'fragment', { x: 'sec 1/2#3' }, 'doc://d#sec%201/2#3'],
    ['/search/{q}', 'no scheme', { q: 'héllo' }, '/search/h%C3%A9llo'],
    ['{+x}{+y}', 'two free expressions', { x: 'a/b', y: '?c' }, 'a/b?c'],
    ['db://t/100%/{x}%2F{y}', 'literal % and %2F', { x: '1', y: '2' }, 'db://t/100%25/1%2F2'],
    ['x{.x}{;y}{&x}', 'label, params, continuation', { x: 'v', y: '' }, 'x.v;y&x=v'],
    ['lit only', 'no expression', {}, 'lit%20only'],
    ['{x}', 'undefined variable', {}, ''],
  ])('%j (%s)', (template, _what, vars, expected) => {
    expect(expand(template, vars)).toBe(expected);
    const expanded = expand(wrapResourceTemplate('up', template), vars);
    expect(expanded).toBe(`mcppipe+t://up/${expected}`);
    expect(unwrapResourceUri(expanded)).toEqual({ upstream: 'up', uri: expected });
  });

  it('holds for every template and every variable set (url-template as the RFC 6570 oracle)', () => {
    fc.assert(
      fc.property(upstreamNames, templates, variables, (upstream, template, vars) => {
        const expected = tryExpand(template, vars);
        const wrapped = wrapResourceTemplate(upstream, template);
        if (!expected.ok) {
          expect(() => expand(wrapped, vars)).toThrow();
          return;
        }
        const expanded = expand(wrapped, vars);
        expect(unwrapResourceUri(expanded)).toEqual({ upstream, uri: expected.uri });
      }),
      { numRuns: 5000 },
    );
  });

  it('never confuses a template expansion with a wrapped plain URI', () => {
    fc.assert(
      fc.property(
        upstreamNames,
        templates,
        variables,
        fc.string({ unit: 'binary' }),
        (upstream, template, vars, uri) => {
          const expected = tryExpand(template, vars);
          fc.pre(expected.ok);
          const fromTemplate = expand(wrapResourceTemplate(upstream, template), vars);
          const plain = wrapResourceUri(upstream, uri);
          expect(fromTemplate.startsWith('mcppipe+t://')).toBe(true);
          expect(plain.startsWith('mcppipe://')).toBe(true);
          expect(fromTemplate).not.toBe(plain);
          // Each unwraps to its own original, through the same function.
          expect(unwrapResourceUri(plain)).toEqual({ upstream, uri });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('why literals stay verbatim: re-encoding the literal between two {+…} expressions is ambiguous', () => {
    // Suppose the wrapped template replaced the literal "/" in "{+a}/{+b}" by some other text M.
    const M = 'Lw';
    const wrappedLike = `{+a}${M}{+b}`;
    const v1 = { a: `${M}z`, b: '' };
    const v2 = { a: '', b: `z${M}` };
    // The agent produces the same string for both…
    expect(expand(wrappedLike, v1)).toBe(expand(wrappedLike, v2));
    // …but the upstream URIs differ, so no unwrapping can be right for both.
    expect(expand('{+a}/{+b}', v1)).not.toBe(expand('{+a}/{+b}', v2));
  });
});

describe('unwrapResourceTemplate', () => {
  it('round-trips every template', () => {
    fc.assert(
      fc.property(upstreamNames, fc.oneof(templates, fc.string({ unit: 'binary' })), (upstream, template) => {
        expect(unwrapResourceTemplate(wrapResourceTemplate(upstream, template))).toEqual({
          upstream,
          template,
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('nests one level at a time', () => {
    const inner = wrapResourceTemplate('inner', 'file:///{+path}');
    const outer = wrapResourceTemplate('outer', inner);
    expect(unwrapResourceTemplate(outer)).toEqual({ upstream: 'outer', template: inner });
    expect(unwrapResourceUri(unwrapResourceUri(expand(outer, { path: 'a/b' })).uri)).toEqual({
      upstream: 'inner',
      uri: 'file:///a/b',
    });
  });

  it.each([
    ['repo://{owner}', 'it does not start with "mcppipe+t://"'],
    ['mcppipe://gh/cmVwbw', 'it does not start with "mcppipe+t://"'],
    ['mcppipe+t://gh', 'no "/" follows the upstream name'],
    ['mcppipe+t://{x}/y', '"{x}" is not a valid upstream name'],
  ])('unwrapResourceTemplate(%j) throws MCPP_NS_NOT_WRAPPED', (template, reason) => {
    expect(() => unwrapResourceTemplate(template)).toThrow(
      expect.objectContaining({
        code: 'MCPP_NS_NOT_WRAPPED',
        message: `resource template ${JSON.stringify(template)} is not wrapped: expected "mcppipe+t://<upstream>/<template>" (${reason})`,
        data: { template },
      }),
    );
  });
});
