import { describe, expect, it } from 'vitest';
import { parseJsonc } from './jsonc.js';

function syntax(text: string): string {
  try {
    parseJsonc(text, 'f.json');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a syntax error');
}

describe('parseJsonc', () => {
  it('parses what JSON.parse parses', () => {
    const doc = { a: [1, -2.5e3, true, false, null, 'x\n"\\\u00e9\u2028'], b: { c: {} }, d: [] };
    expect(parseJsonc(JSON.stringify(doc, null, 2), 'f.json')).toEqual(doc);
    expect(parseJsonc('"\\u00e9\\/"', 'f.json')).toBe('é/');
    expect(parseJsonc('"a\u007f\u0085b😀c"', 'f.json')).toBe('a\u007f\u0085b😀c');
  });

  it('accepts comments and trailing commas', () => {
    expect(parseJsonc('// c\n{ /* x */ "a": [1, 2,], "b": 1, } // end', 'f.json')).toEqual({
      a: [1, 2],
      b: 1,
    });
  });

  it('keeps __proto__ as an ordinary key', () => {
    const value = parseJsonc('{"__proto__": {"polluted": true}}', 'f.json') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reports line and column without echoing the document', () => {
    expect(syntax('')).toBe('f.json:1:1: invalid JSON: expected a value, found end of file');
    expect(syntax('{"a": tru}')).toBe('f.json:1:7: invalid JSON: expected a value, found "t"');
    expect(syntax('{\n  "a": 1\n  "b": 2\n}')).toBe(
      'f.json:3:3: invalid JSON: expected "," or "}" after a property value, found "\\""',
    );
    expect(syntax('{a: 1}')).toBe(
      'f.json:1:2: invalid JSON: expected a property name in double quotes, found "a"',
    );
    expect(syntax('{"a" 1}')).toBe('f.json:1:6: invalid JSON: expected ":" after a property name, found "1"');
    expect(syntax('[1 2]')).toBe(
      'f.json:1:4: invalid JSON: expected "," or "]" after an array element, found "2"',
    );
    expect(syntax('{"a": "secret\n"}')).toBe('f.json:1:7: invalid JSON: unterminated string');
    expect(syntax('"\\q"')).toBe('f.json:1:2: invalid JSON: invalid escape "\\q" in a string');
    expect(syntax('"a\tb"')).toBe('f.json:1:3: invalid JSON: control character in a string; escape it');
    expect(syntax('-')).toBe('f.json:1:1: invalid JSON: invalid number');
    expect(syntax('{} x')).toBe('f.json:1:4: invalid JSON: unexpected "x" after the document');
    expect(syntax('/* open')).toBe('f.json:1:1: invalid JSON: unterminated comment');
    expect(syntax('{"a":')).toBe('f.json:1:6: invalid JSON: expected a value, found end of file');
    expect(syntax('[1,\n')).toBe('f.json:2:1: invalid JSON: expected a value, found end of file');
  });

  it('limits nesting depth', () => {
    expect(syntax('['.repeat(200))).toBe('f.json:1:102: invalid JSON: nested deeper than 100 levels');
  });
});
