import { isMcpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import { expandUpstream, expandVariables } from './expand.js';

describe('expandVariables', () => {
  const env = { HOME: '/home/u', EMPTY: '', TOKEN: 't0k' };

  it('${VAR} and ${VAR:-default}', () => {
    expect(expandVariables('${HOME}/x', env)).toBe('/home/u/x');
    expect(expandVariables('${EMPTY}', env)).toBe('');
    expect(expandVariables('${PORT:-3001}', env)).toBe('3001');
    expect(expandVariables('${EMPTY:-fallback}', env)).toBe('fallback');
    expect(expandVariables('${TOKEN:-x}', env)).toBe('t0k');
    expect(expandVariables('${NOPE:-}', env)).toBe('');
    expect(expandVariables('a ${HOME} b ${TOKEN}', env)).toBe('a /home/u b t0k');
  });

  it('leaves everything else alone; $${ is a literal ${', () => {
    expect(expandVariables('$HOME ${1} ${a-b} ${} $ {HOME}', env)).toBe('$HOME ${1} ${a-b} ${} $ {HOME}');
    expect(expandVariables('$${HOME}', env)).toBe('${HOME}');
    expect(expandVariables('${X:-${HOME}}', env)).toBe('${HOME}'); // defaults are literal: no nesting
    expect(expandVariables('${toString}', { toString: 'own' })).toBe('own');
  });

  it('an unset variable is MCPP_CFG_UNSET_VARIABLE naming it', () => {
    expect(() => expandVariables('Bearer ${GITHUB_TOKEN}', env)).toThrowError(
      expect.objectContaining({
        code: 'MCPP_CFG_UNSET_VARIABLE',
        message:
          '${GITHUB_TOKEN} is not set; set GITHUB_TOKEN in the environment or write ${GITHUB_TOKEN:-default}',
        data: { variable: 'GITHUB_TOKEN' },
      }),
    );
    expect(() => expandVariables('${constructor}', {})).toThrowError(
      expect.objectContaining({ code: 'MCPP_CFG_UNSET_VARIABLE' }),
    );
  });
});

describe('expandUpstream', () => {
  it('expands command, args, env, cwd of stdio upstreams', () => {
    expect(
      expandUpstream(
        {
          name: 'fs',
          transport: 'stdio',
          command: '${BIN}/srv',
          args: ['${ROOT}'],
          env: { T: '${T}' },
          cwd: '${ROOT}',
          hub: false,
        },
        { BIN: '/b', ROOT: '/r', T: 't' },
      ),
    ).toEqual({
      name: 'fs',
      transport: 'stdio',
      command: '/b/srv',
      args: ['/r'],
      env: { T: 't' },
      cwd: '/r',
      hub: false,
    });
    expect(expandUpstream({ name: 'x', transport: 'stdio', command: 'x' }, {})).toEqual({
      name: 'x',
      transport: 'stdio',
      command: 'x',
    });
  });

  it('keeps a command line without args raw: the launcher expands it word by word after splitting', () => {
    const line = {
      name: 'fs',
      transport: 'stdio',
      command: 'srv --root ${ROOT}',
      env: { R: '${ROOT}' },
    } as const;
    expect(expandUpstream(line, { ROOT: '/a b' })).toEqual({ ...line, env: { R: '/a b' } });
  });

  it('expands url and header values of HTTP upstreams', () => {
    expect(
      expandUpstream(
        {
          name: 'gh',
          transport: 'http',
          url: '${BASE:-https://x}/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        { TOKEN: 'abc' },
      ),
    ).toEqual({
      name: 'gh',
      transport: 'http',
      url: 'https://x/mcp',
      headers: { Authorization: 'Bearer abc' },
    });
  });

  it('an unset variable names the upstream and field', () => {
    expect(() =>
      expandUpstream(
        {
          name: 'gh',
          transport: 'http',
          url: 'https://x',
          headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
        },
        {},
      ),
    ).toThrowError(
      expect.objectContaining({
        code: 'MCPP_CFG_UNSET_VARIABLE',
        message:
          'gh.headers.Authorization: ${GITHUB_TOKEN} is not set; set GITHUB_TOKEN in the environment or write ${GITHUB_TOKEN:-default}',
        data: { variable: 'GITHUB_TOKEN', upstream: 'gh', field: 'headers.Authorization' },
      }),
    );
    expect(() =>
      expandUpstream({ name: 'fs', transport: 'stdio', command: 'x', args: ['a', '${R}'] }, {}),
    ).toThrowError(/^fs\.args\[1\]: \$\{R\} is not set/);
  });
});

describe('expandVariables (moved from @mcppipe/supervisor)', () => {
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

describe('expandUpstream at spawn/connect time (moved from @mcppipe/supervisor, where it is `expandUpstreamSpec`)', () => {
  it('expands url and header values of an HTTP upstream', () => {
    const spec = expandUpstream(
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
      expandUpstream({ name: 'gh', transport: 'stdio', command: 'x', env: { TOKEN: '${GITHUB_TOKEN}' } }, {});
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
