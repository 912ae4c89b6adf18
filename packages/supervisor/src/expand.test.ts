import { isMcpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import { expandUpstreamSpec, expandVariables } from './expand.js';

describe('expandVariables', () => {
  const env = { HOME: '/home/me', EMPTY: '', TOKEN: 's3cret' };

  it.each([
    ['${HOME}/x', '/home/me/x'],
    ['${EMPTY}', ''],
    ['${MISSING:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${HOME:-fallback}', '/home/me'],
    ['$${HOME}', '${HOME}'],
    ['$HOME and ${1} and ${a-b}', '$HOME and ${1} and ${a-b}'],
    ['${MISSING:-${HOME}}', '${HOME}'],
    ['no references', 'no references'],
  ])('%s → %s', (input, expected) => {
    expect(expandVariables(input, env)).toBe(expected);
  });

  it('an unset variable without default is MCPP_CFG_UNSET_VARIABLE naming it', () => {
    try {
      expandVariables('Bearer ${GITHUB_TOKEN}', env);
      expect.unreachable();
    } catch (err) {
      expect(isMcpPipeError(err, 'MCPP_CFG_UNSET_VARIABLE')).toBe(true);
      expect((err as Error).message).toContain('GITHUB_TOKEN');
      expect((err as { data: unknown }).data).toEqual({ variable: 'GITHUB_TOKEN' });
    }
  });
});

describe('expandUpstreamSpec', () => {
  it('expands url and header values of an HTTP upstream', () => {
    const spec = expandUpstreamSpec(
      {
        name: 'gh',
        transport: 'http',
        url: 'http://127.0.0.1:${PORT:-3001}/mcp',
        headers: { Authorization: 'Bearer ${T}' },
      },
      { T: 'abc' },
    );
    expect(spec).toMatchObject({
      url: 'http://127.0.0.1:3001/mcp',
      headers: { Authorization: 'Bearer abc' },
    });
  });

  it('names the upstream and field of an unset variable', () => {
    try {
      expandUpstreamSpec(
        { name: 'gh', transport: 'stdio', command: 'x', env: { TOKEN: '${GITHUB_TOKEN}' } },
        {},
      );
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/^gh\.env\.TOKEN: \$\{GITHUB_TOKEN\} is not set/);
      expect((err as { data: unknown }).data).toEqual({
        variable: 'GITHUB_TOKEN',
        upstream: 'gh',
        field: 'env.TOKEN',
      });
    }
  });
});
