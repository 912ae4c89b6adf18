import { describe, expect, it } from 'vitest';
import { SERIALIZED_RESULT } from '@mcppipe/http';
import { wholeListResult } from './serialized.js';

const bytesOf = (result: object): unknown => (result as Record<symbol, unknown>)[SERIALIZED_RESULT];

describe('wholeListResult', () => {
  const tools = [
    { name: 'a__echo', description: 'Échos — "quoted"\n', inputSchema: { type: 'object' } },
    { name: 'b__add', inputSchema: { type: 'object', properties: { x: { type: 'number' } } } },
  ];

  it('carries its UTF-8 JSON text, equal to JSON.stringify of the result', () => {
    const result = wholeListResult('tools', tools);
    expect(result).toEqual({ tools });
    const bytes = bytesOf(result);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect((bytes as Buffer).toString('utf8')).toBe(JSON.stringify({ tools }));
    expect(JSON.stringify(result)).toBe(JSON.stringify({ tools }));
  });

  it('is one frozen object (and one text) per list array', () => {
    const a = wholeListResult('tools', tools);
    expect(wholeListResult('tools', tools)).toBe(a);
    expect(bytesOf(a)).toBe(bytesOf(a));
    expect(Object.isFrozen(a)).toBe(true);
    const next = wholeListResult('tools', [...tools]);
    expect(next).not.toBe(a);
  });

  it('hides the text from copies and enumeration, so a changed copy is never written with it', () => {
    const result = wholeListResult('prompts', [{ name: 'x__p' }]);
    expect(Object.keys(result)).toEqual(['prompts']);
    expect(Object.getOwnPropertySymbols({ ...result })).toEqual([]);
    expect(bytesOf({ ...result })).toBeUndefined();
  });

  it('answers the empty list of each kind with its own field', () => {
    const empty: readonly object[] = Object.freeze([]);
    expect(wholeListResult('tools', empty)).toEqual({ tools: [] });
    expect(wholeListResult('prompts', empty)).toEqual({ prompts: [] });
  });

  it("keeps the text under @mcppipe/http's registered symbol (the one home of the key)", () => {
    expect(SERIALIZED_RESULT).toBe(Symbol.for('@mcppipe/serialized-result'));
  });
});
