import { describe, expect, it } from 'vitest';
import { withFlagSuggestions } from './issues.js';

describe('withFlagSuggestions', () => {
  const known = ['config', 'data-dir', 'port', 'log-level', 'help', 'version'];

  it('adds a hint for one unknown argument close to a flag', () => {
    expect(withFlagSuggestions('Unknown argument: confg', known)).toBe(
      'Unknown argument: confg (did you mean --config?)',
    );
    expect(withFlagSuggestions('Unknown argument: loglevel', known)).toBe(
      'Unknown argument: loglevel (did you mean --log-level?)',
    );
  });

  it('names each of several unknown arguments that has a close flag', () => {
    expect(withFlagSuggestions('Unknown arguments: confg, zzzzzz, prot', known)).toBe(
      'Unknown arguments: confg, zzzzzz, prot (--confg: did you mean --config?; --prot: did you mean --port?)',
    );
  });

  it('leaves other messages, and arguments close to nothing, unchanged', () => {
    expect(withFlagSuggestions('Unknown argument: zzzzzz', known)).toBe('Unknown argument: zzzzzz');
    expect(withFlagSuggestions('Not enough arguments', known)).toBe('Not enough arguments');
  });
});
