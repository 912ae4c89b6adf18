import { describe, expect, it } from 'vitest';
import { closeMatches, editDistance } from './closeMatches.js';
import { oneLine } from './summary.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['echo', 'ecko', 1],
    ['flaw', 'lawn', 2],
  ])('%j → %j is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closeMatches', () => {
  const servers = ['everything', 'memory', 'filesystem', 'github', 'git'];

  it('suggests typos, best first', () => {
    expect(closeMatches('evrything', servers)).toEqual(['everything']);
    expect(closeMatches('gti', servers)).toEqual(['git']);
    expect(closeMatches('gthub', servers)).toEqual(['github']);
  });

  it('ignores case and separators', () => {
    expect(closeMatches('File_System', servers)).toEqual(['filesystem']);
    expect(closeMatches('read-file', ['read_file', 'write_file'])).toEqual(['read_file']);
  });

  it('suggests names containing the wanted one (or contained in it)', () => {
    expect(closeMatches('file', ['read_text_file', 'list_directory'])).toEqual(['read_text_file']);
    expect(closeMatches('memory_server', servers)).toEqual(['memory']);
  });

  it('suggests nothing for unrelated names or an exact match, and honours the limit', () => {
    expect(closeMatches('zzzzzz', servers)).toEqual([]);
    expect(closeMatches('git', ['git'])).toEqual([]);
    expect(closeMatches('a', ['b', 'c', 'd', 'e', 'f', 'g', 'h'])).toHaveLength(5);
    expect(closeMatches('a', ['b', 'c', 'd'], 2)).toEqual(['b', 'c']);
  });
});

describe('oneLine', () => {
  it('takes the first sentence of the first non-empty line', () => {
    expect(oneLine('Read a file as text. Handles encodings. Use head for the first lines.')).toBe(
      'Read a file as text.',
    );
    expect(oneLine('Is it up? Returns a boolean.')).toBe('Is it up? Returns a boolean.');
    expect(oneLine('E.g. this is not split early. Second sentence.')).toBe('E.g. this is not split early.');
    expect(oneLine('Version v1.2 is supported. More text')).toBe('Version v1.2 is supported.');
    expect(oneLine('no sentence end here')).toBe('no sentence end here');
  });

  it('takes the first non-empty line, trimmed', () => {
    expect(oneLine('\n  First line. \nSecond')).toBe('First line.');
    expect(oneLine('')).toBeUndefined();
    expect(oneLine('  \n \n')).toBeUndefined();
    expect(oneLine(42)).toBeUndefined();
  });

  it('cuts long lines with an ellipsis, never inside a surrogate pair', () => {
    expect(oneLine('x'.repeat(300))).toBe(`${'x'.repeat(199)}…`);
    expect(oneLine(`${'x'.repeat(198)}😀😀`)).toBe(`${'x'.repeat(198)}…`);
    expect(oneLine(`${'x'.repeat(197)}😀😀`)).toBe(`${'x'.repeat(197)}😀…`);
    expect(oneLine(`${'x'.repeat(198)}😀`)).toBe(`${'x'.repeat(198)}😀`);
  });
});
