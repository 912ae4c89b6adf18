import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';

describe('renderTable', () => {
  it('aligns columns and cuts long errors', () => {
    const text = renderTable(
      [
        {
          name: 'everything',
          transport: 'stdio',
          version: '2025-11-25',
          phase: 'available',
          tools: 13,
          prompts: 4,
          resources: 7,
          startMs: 512,
          lastError: '',
        },
        {
          name: 'fs',
          transport: 'http',
          version: '-',
          phase: 'recovering',
          tools: '-',
          prompts: '-',
          resources: '-',
          startMs: '-',
          lastError: 'x'.repeat(80),
        },
      ],
      10,
    );
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'UPSTREAM    TRANSPORT  PROTOCOL    PHASE       TOOLS  PROMPTS  RESOURCES  START   LAST ERROR',
    );
    expect(lines[1]).toBe('everything  stdio      2025-11-25  available   13     4        7          512 ms');
    expect(lines[2]).toBe(
      `fs          http       -           recovering  -      -        -          -       ${'x'.repeat(9)}…`,
    );
  });
});
