import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBase64Url,
  decodeUtf8Base64Url,
  encodeBase64Url,
  encodeUtf8Base64Url,
  loneSurrogateIndex,
} from './base64url.js';

const b64Chars = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''),
);

describe('base64url (no Buffer at runtime; Buffer is the test oracle)', () => {
  it('encodes like Buffer, without padding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(encodeBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
        expect(decodeBase64Url(encodeBase64Url(bytes))).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly the canonical encodings', () => {
    const text = fc.oneof(fc.string({ unit: b64Chars, maxLength: 16 }), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(text, (s) => {
        const bytes = decodeBase64Url(s);
        if (bytes !== undefined) expect(encodeBase64Url(bytes)).toBe(s);
        else {
          // Rejected: then it is not what the encoder would produce for Buffer's reading of it.
          expect(Buffer.from(s, 'base64url').toString('base64url')).not.toBe(s);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['A', 'length 1 mod 4'],
    ['QQ==', 'padding'],
    ['QR', 'non-zero unused bits (2 chars)'],
    ['QUJ', 'non-zero unused bits (3 chars)'],
    ['QU+C', 'standard base64 "+"'],
    ['QU/C', 'standard base64 "/"'],
    ['QU C', 'space'],
    ['QUé', 'non-ASCII'],
  ])('rejects %j (%s)', (s) => {
    expect(decodeBase64Url(s)).toBeUndefined();
  });

  it('decodes only UTF-8, keeping a leading BOM', () => {
    expect(decodeUtf8Base64Url(encodeUtf8Base64Url('\uFEFFx'))).toBe('\uFEFFx');
    expect(decodeUtf8Base64Url(encodeBase64Url(new Uint8Array([0xff])))).toBeUndefined();
    // An encoded surrogate (CESU-8 style) is not UTF-8.
    expect(decodeUtf8Base64Url(encodeBase64Url(new Uint8Array([0xed, 0xa0, 0x80])))).toBeUndefined();
    expect(decodeUtf8Base64Url('')).toBe('');
  });

  it('finds lone surrogates', () => {
    expect(loneSurrogateIndex('abc')).toBe(-1);
    expect(loneSurrogateIndex('a\u{1F600}b')).toBe(-1);
    expect(loneSurrogateIndex('a\uD83D')).toBe(1);
    expect(loneSurrogateIndex('ab\uDE00c')).toBe(2);
    expect(loneSurrogateIndex('\uDE00\uD83D')).toBe(0);
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
        (s) => {
          const i = loneSurrogateIndex(s);
          expect(i === -1).toBe(!/\p{Cs}/u.test(s));
          if (i >= 0) expect(/\p{Cs}/u.exec(s)?.index).toBe(i);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
