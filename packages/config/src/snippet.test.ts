import { describe, expect, it } from 'vitest';
import { clientSnippet, snippetClients, snippetRunner } from './snippet.js';

const sources = [
  '--stdio',
  'fs=npx -y @modelcontextprotocol/server-filesystem .',
  '--upstream',
  'http://127.0.0.1:9/mcp',
];
const runner = { command: '/opt/node/bin/node', args: ['/src/mcppipe/apps/cli/dist/cli.js'] };
const args = ['/src/mcppipe/apps/cli/dist/cli.js', 'up', '--transport', 'stdio', ...sources];

describe('clientSnippet', () => {
  it('Claude Desktop and Cursor: mcpServers.mcppipe with the runner, the stdio transport and the sources', () => {
    for (const client of ['claude-desktop', 'cursor'] as const) {
      const doc = JSON.parse(
        clientSnippet(client, sources, { runner, env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } }),
      ) as {
        mcpServers: { mcppipe: { command: string; args: string[]; env: Record<string, string> } };
      };
      expect(doc.mcpServers.mcppipe).toEqual({
        command: '/opt/node/bin/node',
        args,
        env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
      });
    }
  });

  it('VS Code: servers.mcppipe with type stdio, no env key when there is none', () => {
    const doc = JSON.parse(clientSnippet('vscode', sources, { runner })) as {
      servers: { mcppipe: Record<string, unknown> };
    };
    expect(doc.servers.mcppipe).toEqual({ type: 'stdio', command: '/opt/node/bin/node', args });
  });

  it('Claude Code: the claude mcp add command line, quoted for a POSIX shell', () => {
    const npx = { command: 'npx', args: ['-y', 'mcppipe@0.1.0'] };
    expect(clientSnippet('claude-code', sources, { runner: npx })).toBe(
      "claude mcp add mcppipe -- npx -y mcppipe@0.1.0 up --transport stdio --stdio 'fs=npx -y @modelcontextprotocol/server-filesystem .' --upstream http://127.0.0.1:9/mcp\n",
    );
    expect(clientSnippet('claude-code', ['--stdio', "it's"], { runner })).toContain(`'it'\\''s'`);
  });

  it('covers the four clients', () => {
    expect(snippetClients).toEqual(['claude-desktop', 'cursor', 'vscode', 'claude-code']);
  });
});

describe('snippetRunner', () => {
  const execPath = '/opt/node/bin/node';
  const version = '0.3.1';

  it('from an npx cache: npx -y mcppipe@<its version> (the same release, not whatever npm resolves later)', () => {
    for (const scriptPath of [
      '/home/u/.npm/_npx/4f2a/node_modules/mcppipe/bin.js',
      '/home/u/.npm/_npx/4f2a/node_modules/.bin/mcppipe',
      'C:\\Users\\u\\AppData\\Local\\npm-cache\\_npx\\4f2a\\node_modules\\mcppipe\\bin.js',
    ])
      expect(snippetRunner({ scriptPath, execPath, version })).toEqual({
        command: 'npx',
        args: ['-y', 'mcppipe@0.3.1'],
      });
  });

  it('anywhere else (a checkout, a global install): this node by its absolute path and the script', () => {
    for (const scriptPath of [
      '/src/mcppipe/apps/cli/dist/cli.js',
      '/usr/local/bin/mcppipe',
      '/srv/my_npx/cli.js',
    ])
      expect(snippetRunner({ scriptPath, execPath, version })).toEqual({
        command: execPath,
        args: [scriptPath],
      });
  });
});
