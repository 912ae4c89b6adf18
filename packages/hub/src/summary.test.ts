import { describe, expect, it } from 'vitest';
import { oneLine } from './summary.js';

describe('oneLine', () => {
  it('takes the first sentence of the first prose line, skipping a Markdown title', () => {
    expect(
      oneLine(
        '# Everything Server – Server Instructions\n\nThis server exercises every MCP feature. More text.',
      ),
    ).toBe('This server exercises every MCP feature.');
  });

  it('uses a heading without its marker when there is nothing else', () => {
    expect(oneLine('## Memory server')).toBe('Memory server');
  });

  it('keeps short sentences together and cuts long lines with an ellipsis', () => {
    expect(oneLine('E.g. this is one sentence that goes on. Next one.')).toBe(
      'E.g. this is one sentence that goes on.',
    );
    expect(oneLine('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(oneLine('   \n  ')).toBeUndefined();
    expect(oneLine(42)).toBeUndefined();
  });
});
