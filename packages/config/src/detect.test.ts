import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DetectOptions } from './detect.js';
import { detectClientServers, layoutFromDetected } from './detect.js';

let root: string;
let home: string;
let cwd: string;
let options: DetectOptions;

function write(path: string, content: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcppipe-detect-'));
  home = join(root, 'home');
  cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  options = { homeDir: home, cwd, platform: 'linux', env: {} };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const memory = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };

describe('detectClientServers (A11)', () => {
  it('nothing configured: nothing found, no warnings', async () => {
    const result = await detectClientServers(options);
    expect(result).toEqual({ servers: [], renames: [], warnings: [], searched: expect.any(Array) });
    expect(result.searched).toContain(join(home, '.claude.json'));
  });

  it('reads every client, each server with its source file and client', async () => {
    write(join(cwd, '.mcp.json'), { mcpServers: { shared: { type: 'stdio', command: 'shared-srv' } } });
    write(join(home, '.claude.json'), {
      numStartups: 3,
      mcpServers: { user: { type: 'http', url: 'https://user.example/mcp', headers: { 'X-Key': '${KEY}' } } },
      projects: {
        [cwd]: { mcpServers: { local: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } },
        '/elsewhere': { mcpServers: { other: { command: 'other' } } },
      },
    });
    write(join(home, '.config/Claude/claude_desktop_config.json'), { mcpServers: { memory } });
    write(join(home, '.cursor/mcp.json'), { mcpServers: { cursor: { url: 'https://cursor.example/mcp' } } });
    write(join(home, '.codeium/windsurf/mcp_config.json'), {
      mcpServers: { surf: { serverUrl: 'https://surf.example/mcp' } },
    });
    write(join(home, '.gemini/settings.json'), {
      theme: 'x',
      mcpServers: {
        gemhttp: { httpUrl: 'https://gem.example/mcp', timeout: 5000, trust: true },
        gemsse: { url: 'https://gem.example/sse' },
        gemstdio: { command: 'python', args: ['-m', 'srv'], cwd: '/opt', env: { PORT: 1 } },
      },
    });
    write(
      join(home, '.codex/config.toml'),
      [
        'model = "o3"',
        '[mcp_servers.docs]',
        'command = "docs-mcp"',
        'args = ["--stdio"]',
        'env = { A = "1" }',
        'startup_timeout_sec = 20',
        '[mcp_servers.remote]',
        'url = "https://remote.example/mcp"',
        'bearer_token_env_var = "REMOTE_TOKEN"',
        'env_http_headers = { "X-Org" = "ORG_ID" }',
        'http_headers = { "X-Static" = "1" }',
        '[mcp_servers.off]',
        'command = "off"',
        'enabled = false',
      ].join('\n'),
    );
    const result = await detectClientServers(options);
    expect(result.warnings).toEqual([]);
    expect(result.renames).toEqual([]);
    expect(
      result.servers.map((s) => [s.name, s.sources.map((x) => `${x.client}/${x.scope}/${x.key}`)]),
    ).toEqual([
      ['shared', ['claude-code/project/shared']],
      ['local', ['claude-code/local/local']],
      ['user', ['claude-code/user/user']],
      ['memory', ['claude-desktop/user/memory']],
      ['cursor', ['cursor/user/cursor']],
      ['surf', ['windsurf/user/surf']],
      ['gemhttp', ['gemini-cli/user/gemhttp']],
      ['gemsse', ['gemini-cli/user/gemsse']],
      ['gemstdio', ['gemini-cli/user/gemstdio']],
      ['docs', ['codex/user/docs']],
      ['remote', ['codex/user/remote']],
    ]);
    const byName = Object.fromEntries(result.servers.map((s) => [s.name, s]));
    expect(byName['shared']?.sources[0]).toEqual({
      client: 'claude-code',
      clientName: 'Claude Code',
      scope: 'project',
      file: join(cwd, '.mcp.json'),
      key: 'shared',
    });
    expect(byName['shared']?.upstream).toEqual({
      name: 'shared',
      transport: 'stdio',
      command: 'shared-srv',
      args: [],
    });
    expect(byName['user']?.upstream).toEqual({
      name: 'user',
      transport: 'http',
      url: 'https://user.example/mcp',
      headers: { 'X-Key': '${KEY}' },
    });
    expect(byName['local']?.upstream).toEqual({
      name: 'local',
      transport: 'http',
      url: 'http://127.0.0.1:9/sse',
      protocol: 'legacy',
    });
    expect(byName['memory']?.upstream).toEqual({ name: 'memory', transport: 'stdio', ...memory });
    expect(byName['surf']?.upstream).toEqual({
      name: 'surf',
      transport: 'http',
      url: 'https://surf.example/mcp',
    });
    expect(byName['gemhttp']?.upstream).toEqual({
      name: 'gemhttp',
      transport: 'http',
      url: 'https://gem.example/mcp',
    });
    expect(byName['gemsse']?.upstream).toEqual({
      name: 'gemsse',
      transport: 'http',
      url: 'https://gem.example/sse',
      protocol: 'legacy',
    });
    expect(byName['gemstdio']?.upstream).toEqual({
      name: 'gemstdio',
      transport: 'stdio',
      command: 'python',
      args: ['-m', 'srv'],
      env: { PORT: '1' },
      cwd: '/opt',
    });
    expect(byName['docs']?.upstream).toEqual({
      name: 'docs',
      transport: 'stdio',
      command: 'docs-mcp',
      args: ['--stdio'],
      env: { A: '1' },
      startTimeoutMs: 20_000,
    });
    expect(byName['remote']?.upstream).toEqual({
      name: 'remote',
      transport: 'http',
      url: 'https://remote.example/mcp',
      headers: { 'X-Static': '1', 'X-Org': '${ORG_ID}', Authorization: 'Bearer ${REMOTE_TOKEN}' },
    });
  });

  it('macOS and Windows Claude Desktop paths are read', async () => {
    write(join(home, 'Library/Application Support/Claude/claude_desktop_config.json'), {
      mcpServers: { mac: memory },
    });
    const mac = await detectClientServers({ ...options, platform: 'darwin' });
    expect(mac.servers.map((s) => s.name)).toEqual(['mac']);
    const appData = join(root, 'appdata');
    write(join(appData, 'Claude', 'claude_desktop_config.json'), { mcpServers: { win: memory } });
    // On this (POSIX) machine a win32 path is just a string; readFile maps it back for the test.
    const win = await detectClientServers({
      homeDir: 'C:\\Users\\u',
      cwd: 'C:\\p',
      platform: 'win32',
      env: { APPDATA: 'C:\\AppData' },
      readFile: async (path) => {
        if (path !== 'C:\\AppData\\Claude\\claude_desktop_config.json')
          throw Object.assign(new Error('x'), { code: 'ENOENT' });
        const { readFile } = await import('node:fs/promises');
        return readFile(join(appData, 'Claude', 'claude_desktop_config.json'), 'utf8');
      },
    });
    expect(win.servers.map((s) => [s.name, s.sources[0]?.file])).toEqual([
      ['win', 'C:\\AppData\\Claude\\claude_desktop_config.json'],
    ]);
  });

  it('the same server in two clients is listed once, with every source', async () => {
    write(join(home, '.config/Claude/claude_desktop_config.json'), {
      mcpServers: { memory, web: { url: 'https://x.example/mcp' } },
    });
    write(join(home, '.cursor/mcp.json'), {
      mcpServers: {
        'Memory Server': { ...memory },
        webby: { url: 'https://x.example/mcp', headers: { A: 'b' } },
        'memory-env': { ...memory, env: { A: '1' } },
      },
    });
    const result = await detectClientServers(options);
    expect(result.servers.map((s) => [s.name, s.sources.map((x) => `${x.client}:${x.key}`)])).toEqual([
      ['memory', ['claude-desktop:memory', 'cursor:Memory Server']],
      ['web', ['claude-desktop:web', 'cursor:webby']],
      ['memory-env', ['cursor:memory-env']],
    ]);
  });

  it('keys are sanitized into valid, unique names; renames are reported', async () => {
    write(join(home, '.config/Claude/claude_desktop_config.json'), {
      mcpServers: {
        'GitHub Copilot': { url: 'https://a.example' },
        github: { url: 'https://b.example' },
        GitHub: { url: 'https://c.example' },
        '1password': { command: 'op-mcp' },
        my__server: { command: 'mine' },
      },
    });
    const result = await detectClientServers(options);
    expect(result.servers.map((s) => [s.sources[0]?.key, s.name, s.upstream.name])).toEqual([
      ['GitHub Copilot', 'github-copilot', 'github-copilot'],
      ['github', 'github', 'github'],
      ['GitHub', 'github-2', 'github-2'],
      ['1password', 'srv-1password', 'srv-1password'],
      ['my__server', 'my_server', 'my_server'],
    ]);
    expect(result.renames).toEqual([
      { key: 'GitHub Copilot', name: 'github-copilot' },
      { key: 'GitHub', name: 'github-2' },
      { key: '1password', name: 'srv-1password' },
      { key: 'my__server', name: 'my_server' },
    ]);
  });

  it('VS Code: the servers key, inputs with defaults, ${workspaceFolder}, ${env:X}; no default → skipped', async () => {
    const file = write(
      join(cwd, '.vscode/mcp.json'),
      [
        '{',
        '  // VS Code writes JSONC',
        '  "inputs": [',
        '    { "type": "promptString", "id": "org", "description": "Org", "default": "acme" },',
        '    { "type": "promptString", "id": "token", "description": "Token", "password": true },',
        '  ],',
        '  "servers": {',
        '    "fs": { "type": "stdio", "command": "${workspaceFolder}/bin/fs", "args": ["${userHome}"], "env": { "ORG": "${input:org}", "KEY": "${env:API_KEY}" } },',
        '    "gh": { "type": "http", "url": "https://gh.example/mcp", "headers": { "Authorization": "Bearer ${input:token}" } },',
        '  },',
        '}',
      ].join('\n'),
    );
    const result = await detectClientServers(options);
    expect(result.servers.map((s) => s.upstream)).toEqual([
      {
        name: 'fs',
        transport: 'stdio',
        command: `${cwd}/bin/fs`,
        args: [home],
        env: { ORG: 'acme', KEY: '${API_KEY}' },
      },
    ]);
    expect(result.warnings).toEqual([
      `${file}: servers.gh: uses \${input:token} without a default; mcppipe cannot prompt for VS Code inputs; skipped`,
    ]);
  });

  it('unreadable and malformed files are skipped with a warning; other files still count', async () => {
    const bad = write(
      join(cwd, '.mcp.json'),
      '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": 1\n  }\n}',
    );
    mkdirSync(join(home, '.cursor', 'mcp.json'), { recursive: true });
    const toml = write(join(home, '.codex/config.toml'), '[mcp_servers.a\n');
    write(join(home, '.gemini/settings.json'), { mcpServers: ['not', 'an', 'object'] });
    write(join(home, '.config/Claude/claude_desktop_config.json'), {
      mcpServers: {
        ok: memory,
        none: { description: 'no command or url' },
        both: { command: 'x', url: 'http://x' },
        badargs: { command: 'x', args: 'a b' },
        badenv: { command: 'x', env: { A: { nested: true } } },
        badheaders: { url: 'http://x', headers: ['a'] },
        ftp: { url: 'ftp://x' },
        scalar: 'npx srv',
        off: { command: 'off', disabled: true },
      },
    });
    const result = await detectClientServers(options);
    expect(result.servers.map((s) => s.name)).toEqual(['ok']);
    const desktop = join(home, '.config/Claude/claude_desktop_config.json');
    expect(result.warnings).toEqual([
      `${bad}:4:5: invalid JSON: expected "," or "}" after a property value, found "\\""; skipped`,
      `${desktop}: mcpServers.none: has neither "command" nor "url"; skipped`,
      `${desktop}: mcpServers.both: sets both "command" and a URL; skipped`,
      `${desktop}: mcpServers.badargs: "args" is not an array of strings; skipped`,
      `${desktop}: mcpServers.badenv: "env" is not an object of strings; skipped`,
      `${desktop}: mcpServers.badheaders: headers are not an object of strings; skipped`,
      `${desktop}: mcpServers.ftp: the URL is not http:// or https://; skipped`,
      `${desktop}: mcpServers.scalar: not an object; skipped`,
      `${join(home, '.cursor', 'mcp.json')}: cannot read: it is a directory (EISDIR); skipped`,
      `${join(home, '.gemini/settings.json')}: mcpServers: not an object; skipped`,
      `${toml}:1:15: invalid TOML: unexpected end of line; skipped`,
    ]);
  });

  it('a read failure other than "missing" is a warning', async () => {
    const result = await detectClientServers({
      ...options,
      readFile: (path) =>
        Promise.reject(
          Object.assign(new Error('denied'), { code: path.endsWith('.claude.json') ? 'EACCES' : 'ENOENT' }),
        ),
    });
    expect(result.warnings).toEqual([
      `${join(home, '.claude.json')}: cannot read: permission denied (EACCES); skipped`,
    ]);
  });
});

describe('layoutFromDetected', () => {
  const servers = [
    { name: 'web', upstream: { name: 'web', transport: 'http' as const, url: 'https://x' }, sources: [] },
    {
      name: 'mem',
      upstream: { name: 'mem', transport: 'stdio' as const, command: 'npx', args: [] },
      sources: [],
    },
  ];

  it('all servers (headless): aggregate, sorted by name', () => {
    expect(layoutFromDetected(servers)).toEqual({
      mode: 'aggregate',
      upstreams: [servers[1]?.upstream, servers[0]?.upstream],
    });
  });

  it('one selected: single', () => {
    expect(layoutFromDetected(servers, ['web'])).toEqual({
      mode: 'single',
      upstreams: [servers[0]?.upstream],
    });
  });

  it('nothing to serve: MCPP_CFG_NO_SOURCES', () => {
    expect(() => layoutFromDetected([])).toThrowError(
      expect.objectContaining({
        code: 'MCPP_CFG_NO_SOURCES',
        message:
          'no upstreams: no MCP servers were found in local MCP clients; pass --upstream URL, --stdio "command" or --upstreams-file FILE',
      }),
    );
    expect(() => layoutFromDetected(servers, [])).toThrowError(
      expect.objectContaining({
        code: 'MCPP_CFG_NO_SOURCES',
        message:
          'no upstreams: no detected server was selected; select at least one, or pass --upstream URL, --stdio "command" or --upstreams-file FILE',
      }),
    );
  });

  it('selecting an unknown name: MCPP_CFG_INVALID', () => {
    let err: unknown;
    try {
      layoutFromDetected(servers, ['web', 'nope']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McpPipeError);
    expect(err).toMatchObject({
      code: 'MCPP_CFG_INVALID',
      message: 'cannot select "nope" is not a detected server',
    });
  });
});
