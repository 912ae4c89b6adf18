import { describe, expect, it } from 'vitest';
import { TextTail } from './textTail.js';

const kinds = { head: 3, errors: 2, tail: 5 };
const usage = (n: number) => Array.from({ length: n }, (_, i) => `  --option-${i + 1}  usage line ${i + 1}`);

describe('TextTail.excerpt', () => {
  it('returns a short stream whole, without markers', () => {
    const t = new TextTail(16_384);
    t.append('fatal: cannot open database\n\nretrying is pointless\n');
    expect(t.excerpt(kinds)).toEqual(['fatal: cannot open database', 'retrying is pointless']);
  });

  it('keeps the first lines and the tail of a stream that fits the tail, with … between', () => {
    const t = new TextTail(16_384);
    t.append(['No access token was provided.', '', 'Usage: server [options]', ...usage(40), ''].join('\n'));
    expect(t.excerpt(kinds)).toEqual([
      'No access token was provided.',
      'Usage: server [options]',
      '  --option-1  usage line 1',
      '…',
      ...usage(40).slice(-5),
    ]);
  });

  it('keeps the first lines once the tail has moved past them (chunked, bounded tail)', () => {
    const t = new TextTail(256);
    const text = `No access token was provided.\n${usage(200).join('\n')}\n`;
    for (let i = 0; i < text.length; i += 100) t.append(Buffer.from(text.slice(i, i + 100)));
    expect(t.lines(50).some((l) => l.includes('No access token'))).toBe(false); // the tail alone lost it
    expect(t.excerpt(kinds)).toEqual([
      'No access token was provided.',
      '  --option-1  usage line 1',
      '  --option-2  usage line 2',
      '…',
      ...usage(200).slice(-5),
    ]);
  });

  it('adds the first error-like lines after the head (a stack trace printed after the source line)', () => {
    const t = new TextTail(16_384);
    const stack = Array.from({ length: 30 }, (_, i) => `    at frame${i} (file:///srv/index.js:${i}:1)`);
    t.append(
      [
        'file:///srv/index.js:5',
        "  if (!token) throw new TypeError('no token');",
        '                 ^',
        '',
        'Error: MY_API_KEY is not set',
        ...stack,
        '',
        'Node.js v20.20.0',
      ].join('\n'),
    );
    const lines = t.excerpt(kinds);
    expect(lines.slice(0, 5)).toEqual([
      'file:///srv/index.js:5',
      "  if (!token) throw new TypeError('no token');",
      '                 ^',
      'Error: MY_API_KEY is not set',
      '…',
    ]);
    expect(lines.at(-1)).toBe('Node.js v20.20.0');
    expect(lines).toHaveLength(5 + 5);
  });

  it('is bounded: every line is cut to 300 characters', () => {
    const t = new TextTail(1 << 20);
    t.append(`${'e'.repeat(10_000)}\n`.repeat(100));
    const lines = t.excerpt(kinds);
    expect(lines.every((l) => l.length <= 301)).toBe(true);
    expect(lines.join(' | ').length).toBeLessThan((3 + 2 + 5) * 301 + 20);
  });
});
