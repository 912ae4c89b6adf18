import { McpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import type { CliSourceFlags } from './cliSources.js';
import { formatCliSource, resolveCliSources, splitCliSource } from './cliSources.js';

function failure(flags: CliSourceFlags): McpPipeError {
  try {
    resolveCliSources(flags);
  } catch (err) {
    if (err instanceof McpPipeError) return err;
    throw err;
  }
  throw new Error('expected resolveCliSources to throw');
}

describe('splitCliSource: name=value is tolerant of = inside URLs and commands', () => {
  it.each([
    ['search=http://127.0.0.1:3001', 'search', 'http://127.0.0.1:3001'],
    ['http://x/?a=b', undefined, 'http://x/?a=b'],
    ['https://x/mcp?token=abc&x=y', undefined, 'https://x/mcp?token=abc&x=y'],
    ['search=http://x/?a=b', 'search', 'http://x/?a=b'],
    ['Search=http://x', 'Search', 'http://x'],
    ['my-api_2=https://x', 'my-api_2', 'https://x'],
    ['localhost:3001', undefined, 'localhost:3001'],
    ['a b=http://x', undefined, 'a b=http://x'],
    ['x.y=http://x', undefined, 'x.y=http://x'],
    ['  search=http://x  ', 'search', 'http://x'],
  ])('--upstream %j → name %j, url %j', (raw, name, value) => {
    expect(splitCliSource('--upstream', raw)).toEqual({ flag: '--upstream', raw, name, value });
  });

  it.each([
    [
      'fs=npx -y @modelcontextprotocol/server-filesystem .',
      'fs',
      'npx -y @modelcontextprotocol/server-filesystem .',
    ],
    [
      'npx -y @modelcontextprotocol/server-filesystem .',
      undefined,
      'npx -y @modelcontextprotocol/server-filesystem .',
    ],
    ['env A=B cmd', undefined, 'env A=B cmd'],
    ['node server.js --port=1', undefined, 'node server.js --port=1'],
    ['fs=node server.js --port=1', 'fs', 'node server.js --port=1'],
    ['python -m srv --opt=a=b', undefined, 'python -m srv --opt=a=b'],
    ['/opt/x=y/srv --a=b', undefined, '/opt/x=y/srv --a=b'],
    ['C:\\tools\\a=b\\srv.exe', undefined, 'C:\\tools\\a=b\\srv.exe'],
    ['NODE_ENV=production node x.js', 'NODE_ENV', 'production node x.js'],
    ['--flag=1 x', undefined, '--flag=1 x'],
    ['fs=', 'fs', ''],
  ])('--stdio %j → name %j, command %j', (raw, name, value) => {
    expect(splitCliSource('--stdio', raw)).toEqual({ flag: '--stdio', raw, name, value });
  });

  it('formats sources the way a user types them', () => {
    expect(formatCliSource({ flag: '--upstream', name: undefined, value: 'http://x:1/mcp' })).toBe(
      '--upstream http://x:1/mcp',
    );
    // messages end up in logs: a URL is shown without its query or userinfo
    expect(formatCliSource({ flag: '--upstream', name: undefined, value: 'http://x/?a=b&c=d' })).toBe(
      '--upstream "http://x/?[redacted]"',
    );
    expect(formatCliSource({ flag: '--stdio', name: 'fs', value: 'npx -y "a b" $HOME' })).toBe(
      '--stdio fs="npx -y \\"a b\\" \\$HOME"',
    );
  });
});

describe('resolveCliSources', () => {
  it('no flags: auto-detect (A11)', () => {
    expect(resolveCliSources({})).toEqual({ source: 'none' });
    expect(resolveCliSources({ upstream: [], stdio: [] })).toEqual({ source: 'none' });
  });

  it('one bare --upstream: the single-upstream hot path, named after the host', () => {
    expect(resolveCliSources({ upstream: ['https://mcp.notion.com/mcp'] })).toEqual({
      source: 'flags',
      layout: {
        mode: 'single',
        upstreams: [{ name: 'notion', transport: 'http', url: 'https://mcp.notion.com/mcp' }],
      },
    });
  });

  it('one bare --stdio: single, named after the package; the command line is kept whole', () => {
    expect(resolveCliSources({ stdio: ['npx -y @modelcontextprotocol/server-filesystem .'] })).toEqual({
      source: 'flags',
      layout: {
        mode: 'single',
        upstreams: [
          {
            name: 'server-filesystem',
            transport: 'stdio',
            command: 'npx -y @modelcontextprotocol/server-filesystem .',
          },
        ],
      },
    });
  });

  it('one named source is single too (like a one-section file)', () => {
    const result = resolveCliSources({ upstream: ['search=http://127.0.0.1:3001'] });
    expect(result).toEqual({
      source: 'flags',
      layout: {
        mode: 'single',
        upstreams: [{ name: 'search', transport: 'http', url: 'http://127.0.0.1:3001' }],
      },
    });
  });

  it('named sources: an aggregate layout sorted by name', () => {
    const result = resolveCliSources({
      upstream: ['search=http://127.0.0.1:3001/?a=b'],
      stdio: ['filesystem=npx -y @modelcontextprotocol/server-filesystem .', 'everything=node e.js --x=1'],
    });
    expect(result).toEqual({
      source: 'flags',
      layout: {
        mode: 'aggregate',
        upstreams: [
          { name: 'everything', transport: 'stdio', command: 'node e.js --x=1' },
          {
            name: 'filesystem',
            transport: 'stdio',
            command: 'npx -y @modelcontextprotocol/server-filesystem .',
          },
          { name: 'search', transport: 'http', url: 'http://127.0.0.1:3001/?a=b' },
        ],
      },
    });
  });

  it('one bare --upstream plus one bare --stdio: ambiguous, showing how to name them', () => {
    const err = failure({
      upstream: ['http://127.0.0.1:3001'],
      stdio: ['npx -y @modelcontextprotocol/server-memory'],
    });
    expect(err.code).toBe('MCPP_CFG_AMBIGUOUS_SOURCES');
    expect(err.message).toBe(
      [
        'ambiguous sources: one unnamed --upstream and one unnamed --stdio.',
        'To aggregate both, name each one:',
        '  --upstream srv-127-0-0-1=http://127.0.0.1:3001 --stdio server-memory="npx -y @modelcontextprotocol/server-memory"',
        'To serve one alone, pass only that one.',
      ].join('\n'),
    );
    expect(err.data).toEqual({
      sources: ['http://127.0.0.1:3001', 'npx -y @modelcontextprotocol/server-memory'],
    });
  });

  it('two or more sources with a bare one: names the bare one', () => {
    const err = failure({
      upstream: ['search=http://127.0.0.1:3001'],
      stdio: ['npx -y @modelcontextprotocol/server-memory'],
    });
    expect(err.code).toBe('MCPP_CFG_BARE_SOURCE');
    expect(err.message).toBe(
      '--stdio "npx -y @modelcontextprotocol/server-memory" has no name; with 2 or more sources every one needs name=. For example:\n' +
        '  --stdio server-memory="npx -y @modelcontextprotocol/server-memory"',
    );
  });

  it('several bare sources: names each, with distinct suggestions that avoid taken names', () => {
    const err = failure({
      upstream: ['http://localhost:3001', 'http://localhost:3002', 'localhost=http://localhost:3000'],
    });
    expect(err.code).toBe('MCPP_CFG_BARE_SOURCE');
    expect(err.message).toBe(
      '--upstream http://localhost:3001 and --upstream http://localhost:3002 have no name; with 2 or more sources every one needs name=. For example:\n' +
        '  --upstream localhost-2=http://localhost:3001\n' +
        '  --upstream localhost-3=http://localhost:3002',
    );
  });

  it('two bare --upstream flags are not "ambiguous" but bare', () => {
    expect(failure({ upstream: ['http://a.test', 'http://b.test'] }).code).toBe('MCPP_CFG_BARE_SOURCE');
  });

  it('--upstreams-file with --upstream/--stdio: conflict', () => {
    const err = failure({ upstreamsFile: 'tunnel.toml', upstream: ['http://x'] });
    expect(err.code).toBe('MCPP_CFG_SOURCE_CONFLICT');
    expect(err.message).toBe(
      '--upstreams-file cannot be combined with --upstream or --stdio: list every upstream in tunnel.toml, or pass them all as flags',
    );
    expect(failure({ upstreamsFile: 'tunnel.toml', stdio: ['fs=x'] }).code).toBe('MCPP_CFG_SOURCE_CONFLICT');
  });

  it('--upstreams-file alone: the file is still to be read', () => {
    expect(resolveCliSources({ upstreamsFile: 'tunnel.toml', upstream: [] })).toEqual({
      source: 'file',
      path: 'tunnel.toml',
    });
  });

  it('an invalid name is loud, never taken as part of the value', () => {
    const err = failure({ upstream: ['Search=http://x'] });
    expect(err.code).toBe('MCPP_NS_INVALID_NAME');
    expect(err.message).toBe(
      '--upstream Search=http://x: upstream name "Search" is invalid: must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"',
    );
    expect(err.data).toEqual({ name: 'Search', source: 'Search=http://x' });
    const env = failure({ stdio: ['NODE_ENV=production node x.js'] });
    expect(env.code).toBe('MCPP_NS_INVALID_NAME');
    expect(env.message).toBe(
      '--stdio NODE_ENV="production node x.js": upstream name "NODE_ENV" is invalid: must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"',
    );
    expect(failure({ stdio: ['my__fs=x'], upstream: ['a=http://x'] }).code).toBe('MCPP_NS_INVALID_NAME');
  });

  it('a duplicate name is loud', () => {
    const err = failure({ upstream: ['a=http://x'], stdio: ['a=npx srv'] });
    expect(err.code).toBe('MCPP_NS_DUPLICATE_NAME');
    expect(err.message).toBe(
      'upstream name "a" is used 2 times: upstream names must be unique within a layout (--upstream a=http://x, --stdio a="npx srv")',
    );
  });

  it('a URL with a user name or password is refused, shown redacted, with the header to use instead', () => {
    const err = failure({
      upstream: ['dead=http://user:pw@127.0.0.1:46999/mcp?token=SECRET123', 'a=http://127.0.0.1:46998/mcp'],
    });
    expect(err.code).toBe('MCPP_CFG_INVALID');
    expect(err.message).toMatch(
      /^--upstream dead="http:\/\/\[redacted\]@127\.0\.0\.1:46999\/mcp\?\[redacted\]": the URL must not contain a user name or password/,
    );
    expect(err.message).toContain('headers = { Authorization = "Bearer ${TOKEN}" }');
    expect(err.message).toContain('--upstreams-file');
    expect(err.message).not.toMatch(/SECRET123|user:pw/);
  });

  it('a value that is not an http(s) URL, or an empty command', () => {
    const err = failure({ upstream: ['localhost:3001'] });
    expect(err.code).toBe('MCPP_CFG_INVALID');
    expect(err.message).toBe('--upstream localhost:3001: not an http:// or https:// URL');
    expect(err.data).toEqual({
      errors: ['--upstream localhost:3001: not an http:// or https:// URL'],
      warnings: [],
    });
    expect(failure({ upstream: ['search=ftp://x'] }).message).toBe(
      '--upstream search=ftp://x: not an http:// or https:// URL',
    );
    expect(failure({ stdio: ['  '] }).message).toBe('--stdio "": the command is empty');
    const both = failure({ upstream: ['a=localhost'], stdio: ['b='] });
    expect(both.message).toBe(
      'invalid source flags:\n  - --upstream a=localhost: not an http:// or https:// URL\n  - --stdio b="": the command is empty',
    );
  });
});
