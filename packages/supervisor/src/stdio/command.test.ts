import { isMcpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import { resolveCommand, splitCommand } from './command.js';

describe('splitCommand', () => {
  it.each([
    [
      'npx -y @modelcontextprotocol/server-filesystem .',
      ['npx', '-y', '@modelcontextprotocol/server-filesystem', '.'],
    ],
    ['node "my server.js" \'a b\' c\\ d', ['node', 'my server.js', 'a b', 'c d']],
    [
      'node x.js --port ${PORT:-3000} "${DIR}/a b"',
      ['node', 'x.js', '--port', '${PORT:-3000}', '${DIR}/a b'],
    ],
    ['node $HOME/x.js *.json', ['node', '$HOME/x.js', '*.json']],
    ['  node   x.js  # a comment', ['node', 'x.js']],
  ])('%s', (line, words) => {
    expect(splitCommand(line)).toEqual(words);
  });

  it.each(['a | b', 'a && b', 'a > out', 'a; b', ''])('rejects %j (no shell)', (line) => {
    expect(() => splitCommand(line)).toThrow(/MCPP_CFG_INVALID|shell operator|empty/);
    try {
      splitCommand(line);
    } catch (err) {
      expect(isMcpPipeError(err, 'MCPP_CFG_INVALID')).toBe(true);
    }
  });
});

describe('resolveCommand', () => {
  it('splits, then expands each word, so a value with spaces stays one argument', () => {
    const r = resolveCommand(
      {
        name: 'fs',
        transport: 'stdio',
        command: 'node server.js ${DIR} --x=${X:-1}',
        env: { K: '${DIR}' },
        cwd: '${DIR}',
      },
      { DIR: '/tmp/My Documents' },
    );
    expect(r).toEqual({
      command: 'node',
      args: ['server.js', '/tmp/My Documents', '--x=1'],
      env: { K: '/tmp/My Documents' },
      cwd: '/tmp/My Documents',
    });
  });

  it('uses args verbatim (expanded) when given', () => {
    const r = resolveCommand(
      { name: 'a', transport: 'stdio', command: '${NODE}', args: ['a b', '${Y:-y}'] },
      { NODE: 'node' },
    );
    expect(r.command).toBe('node');
    expect(r.args).toEqual(['a b', 'y']);
  });

  it('an unset variable fails naming the upstream, field and variable', () => {
    expect(() => resolveCommand({ name: 'gh', transport: 'stdio', command: 'node ${SCRIPT}' }, {})).toThrow(
      /^gh\.command: \$\{SCRIPT\} is not set/,
    );
  });
});
