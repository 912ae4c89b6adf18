/**
 * base64url (RFC 4648 §5) without padding, over UTF-8, with no dependency on `Buffer`: it runs on any
 * runtime with `TextEncoder`/`TextDecoder`. Decoding is strict, so that every accepted string is the one
 * canonical encoding of its bytes.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Character code → 6-bit value, or -1. */
const LOOKUP: readonly number[] = (() => {
  const table = new Array<number>(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

const encoder = new TextEncoder();
// fatal: reject invalid UTF-8; ignoreBOM: keep a leading U+FEFF, which is part of the URI.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Encodes bytes as base64url without padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}

/**
 * Decodes canonical unpadded base64url; `undefined` for anything else: a character outside the alphabet
 * (including `=`), a length of 1 modulo 4, or non-zero unused bits in the last character.
 */
export function decodeBase64Url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const values = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) {
    const v = LOOKUP[text.charCodeAt(i)] ?? -1;
    if (v < 0) return undefined;
    values[i] = v;
  }
  const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 3 < text.length; i += 4) {
    const n = (values[i]! << 18) | (values[i + 1]! << 12) | (values[i + 2]! << 6) | values[i + 3]!;
    bytes[o++] = n >>> 16;
    bytes[o++] = (n >>> 8) & 255;
    bytes[o++] = n & 255;
  }
  const rest = text.length - i;
  if (rest === 2) {
    if ((values[i + 1]! & 15) !== 0) return undefined;
    bytes[o] = (values[i]! << 2) | (values[i + 1]! >>> 4);
  } else if (rest === 3) {
    if ((values[i + 2]! & 3) !== 0) return undefined;
    const n = (values[i]! << 10) | (values[i + 1]! << 4) | (values[i + 2]! >>> 2);
    bytes[o++] = n >>> 8;
    bytes[o] = n & 255;
  }
  return bytes;
}

/** Index of the first lone UTF-16 surrogate in `s`, or -1 when `s` is well-formed. */
export function loneSurrogateIndex(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** base64url (no padding) of the UTF-8 of a well-formed string. */
export function encodeUtf8Base64Url(s: string): string {
  return encodeBase64Url(encoder.encode(s));
}

/** The string whose UTF-8 `text` encodes canonically; `undefined` if `text` is not that or not UTF-8. */
export function decodeUtf8Base64Url(text: string): string | undefined {
  const bytes = decodeBase64Url(text);
  if (bytes === undefined) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
