import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';

describe('renderTable', () => {
  it('aligns columns and wraps long errors within their column, at most 4 lines', () => {
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
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(
      'UPSTREAM    TRANSPORT  PROTOCOL    PHASE       TOOLS  PROMPTS  RESOURCES  START   LAST ERROR',
    );
    expect(lines[1]).toBe('everything  stdio      2025-11-25  available   13     4        7          512 ms');
    expect(lines[2]).toBe(
      `fs          http       -           recovering  -      -        -          -       ${'x'.repeat(10)}`,
    );
    const under = ' '.repeat(lines[2]!.indexOf('x'));
    expect(lines.slice(3)).toEqual([
      `${under}${'x'.repeat(10)}`,
      `${under}${'x'.repeat(10)}`,
      `${under}${'x'.repeat(9)}…`,
    ]);
  });

  it('shows the reason of a refused URL and the first stderr line, not just the start of the error', () => {
    const row = {
      transport: 'http',
      version: '-',
      phase: 'recovering',
      tools: '-',
      prompts: '-',
      resources: '-',
      startMs: '-',
    };
    const text = renderTable([
      {
        ...row,
        name: 'web',
        lastError:
          'connection refused at http://127.0.0.1:41234/mcp: nothing listens on 127.0.0.1:41234; is the server running, and is the port right?',
      },
      {
        ...row,
        name: 'gh',
        transport: 'stdio',
        lastError: `the process exited with code 1: Connection closed; stderr: No access token was provided. | Usage: github-mcp [options] | ${'  --option  what it does |'.repeat(40)}`,
      },
    ]);
    expect(text.split('\n')).toEqual([
      'UPSTREAM  TRANSPORT  PROTOCOL  PHASE       TOOLS  PROMPTS  RESOURCES  START  LAST ERROR',
      'web       http       -         recovering  -      -        -          -      connection refused at http://127.0.0.1:41234/mcp: nothing',
      '                                                                             listens on 127.0.0.1:41234; is the server running, and is',
      '                                                                             the port right?',
      'gh        stdio      -         recovering  -      -        -          -      the process exited with code 1: Connection closed; stderr:',
      '                                                                             No access token was provided. | Usage: github-mcp [options]',
      '                                                                             | --option what it does | --option what it does | --option',
      '                                                                             what it does | --option what it does | --option what it doe…',
    ]);
  });
});
