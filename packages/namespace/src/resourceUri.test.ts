import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unwrapResourceUri, wrapResourceUri } from './resourceUri.js';
import { isValidUpstreamName } from './upstreamName.js';

const upstreamNames = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/).filter(isValidUpstreamName),
  fc.constantFrom('a', 'fs', 'a-', 'z'.repeat(32)),
);
const utf16Unit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
/** Well-formed strings of every kind: printable ASCII, any code point, graphemes, URI punctuation. */
const wellFormed = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({
    unit: fc.constantFrom(...":/?#[]@!$&'()*+,;=%-._~ ".split(''), 'é', '\u{1F600}', '\uFEFF', '\0'),
  }),
);

describe('wrapResourceUri / unwrapResourceUri (A2)', () => {
  it('wraps as mcppipe://<upstream>/<base64url(utf8(uri))> without padding', () => {
    expect(wrapResourceUri('fs', 'file:///tmp/a.txt')).toBe('mcppipe://fs/ZmlsZTovLy90bXAvYS50eHQ');
    expect(wrapResourceUri('fs', 'a')).toBe('mcppipe://fs/YQ');
    expect(wrapResourceUri('fs', '')).toBe('mcppipe://fs/');
  });

  it.each([
    'file:///tmp/a.txt',
    'file:///C:/Users/ü/naïve résumé.txt',
    'ui://widget/card.html',
    'custom+scheme:opaque/part',
    '/search/x',
    'search/x?q=1&r=a b#frag',
    'https://example.com/a?b=c#d',
    'postgres://user@db/table?x=%2F%25',
    '',
    '?',
    '#',
    '日本語/テスト',
    '\u{1F600}',
    '\uFEFFbom-first',
    'mcppipe://inner/ZmlsZQ',
    'mcppipe+t://inner/file:///x',
  ])('round-trips %j byte-exactly', (uri) => {
    const wrapped = wrapResourceUri('up', uri);
    expect(wrapped).toMatch(/^mcppipe:\/\/up\/[A-Za-z0-9_-]*$/);
    expect(unwrapResourceUri(wrapped)).toEqual({ upstream: 'up', uri });
  });

  it('round-trips every well-formed string', () => {
    fc.assert(
      fc.property(upstreamNames, wellFormed, (upstream, uri) => {
        const wrapped = wrapResourceUri(upstream, uri);
        expect(wrapped.startsWith(`mcppipe://${upstream}/`)).toBe(true);
        expect(unwrapResourceUri(wrapped)).toEqual({ upstream, uri });
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects lone surrogates (UTF-8 would replace them) and round-trips everything else', () => {
    expect(() => wrapResourceUri('fs', 'a\uD800b')).toThrow(
      expect.objectContaining({
        code: 'MCPP_NS_INVALID_URI',
        message:
          'resource URI "a\\ud800b" cannot be wrapped: it contains a lone UTF-16 surrogate at index 1, which UTF-8 cannot represent (the URI must be a well-formed string)',
        data: { uri: 'a\uD800b', index: 1 },
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: utf16Unit }), (uri) => {
        const lone = /\p{Cs}/u.test(uri);
        if (lone)
          expect(() => wrapResourceUri('fs', uri)).toThrow(
            expect.objectContaining({ code: 'MCPP_NS_INVALID_URI' }),
          );
        else expect(unwrapResourceUri(wrapResourceUri('fs', uri)).uri).toBe(uri);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects an invalid upstream name', () => {
    expect(() => wrapResourceUri('Fs', 'x')).toThrow(
      expect.objectContaining({ code: 'MCPP_NS_INVALID_NAME' }),
    );
  });

  it('is a bijection: every accepted wrapped URI is the wrapping of what it unwraps to', () => {
    const payload = fc.string({
      unit: fc.constantFrom(
        ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''),
        '=',
        '/',
        '+',
      ),
      maxLength: 24,
    });
    fc.assert(
      fc.property(upstreamNames, payload, (upstream, p) => {
        const w = `mcppipe://${upstream}/${p}`;
        let unwrapped: { upstream: string; uri: string };
        try {
          unwrapped = unwrapResourceUri(w);
        } catch (err) {
          expect(err).toMatchObject({ code: 'MCPP_NS_NOT_WRAPPED' });
          return;
        }
        expect(wrapResourceUri(unwrapped.upstream, unwrapped.uri)).toBe(w);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['file:///tmp/a.txt', 'it starts with neither "mcppipe://" nor "mcppipe+t://"'],
    ['', 'it starts with neither "mcppipe://" nor "mcppipe+t://"'],
    ['MCPPIPE://fs/YQ', 'it starts with neither "mcppipe://" nor "mcppipe+t://"'],
    ['mcppipe:fs/YQ', 'it starts with neither "mcppipe://" nor "mcppipe+t://"'],
    ['mcppipe://fs', 'no "/" follows the upstream name'],
    ['mcppipe://Fs/YQ', '"Fs" is not a valid upstream name'],
    ['mcppipe:///YQ', '"" is not a valid upstream name'],
    ['mcppipe://fs/YQ==', '"YQ==" is not canonical unpadded base64url of UTF-8 text'],
    ['mcppipe://fs/YR', '"YR" is not canonical unpadded base64url of UTF-8 text'],
    ['mcppipe://fs/YQ/x', '"YQ/x" is not canonical unpadded base64url of UTF-8 text'],
    ['mcppipe://fs/_w', '"_w" is not canonical unpadded base64url of UTF-8 text'],
    ['mcppipe+t://fs', 'no "/" follows the upstream name'],
    ['mcppipe+t://a_/x', '"a_" is not a valid upstream name'],
  ])('unwrapResourceUri(%j) throws MCPP_NS_NOT_WRAPPED', (uri, reason) => {
    expect(() => unwrapResourceUri(uri)).toThrow(
      expect.objectContaining({
        code: 'MCPP_NS_NOT_WRAPPED',
        message: `resource URI ${JSON.stringify(uri)} is not wrapped: expected "mcppipe://<upstream>/<base64url of its UTF-8, no padding>" or "mcppipe+t://<upstream>/<expanded template>" (${reason})`,
        data: { uri },
      }),
    );
  });

  it('nests: an aggregator behind an aggregator unwraps one level at a time', () => {
    const inner = wrapResourceUri('inner', 'file:///a');
    const outer = wrapResourceUri('outer', inner);
    expect(unwrapResourceUri(outer)).toEqual({ upstream: 'outer', uri: inner });
    expect(unwrapResourceUri(unwrapResourceUri(outer).uri)).toEqual({ upstream: 'inner', uri: 'file:///a' });
  });
});
