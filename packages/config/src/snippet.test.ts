import { describe, expect, it } from 'vitest';
import { clientSnippet, snippetClients } from './snippet.js';

const sources = [
  '--stdio',
  'fs=npx -y @modelcontextprotocol/server-filesystem .',
  '--upstream',
  'http://127.0.0.1:9/mcp',
];
const args = ['-y', 'mcppipe', 'up', '--transport', 'stdio', ...sources];

describe('clientSnippet', () => {
  it('Claude Desktop and Cursor: mcpServers.mcppipe with npx, the stdio transport and the sources', () => {
    for (const client of ['claude-desktop', 'cursor'] as const) {
      const doc = JSON.parse(clientSnippet(client, sources, { GITHUB_TOKEN: '${GITHUB_TOKEN}' })) as {
        mcpServers: { mcppipe: { command: string; args: string[]; env: Record<string, string> } };
      };
      expect(doc.mcpServers.mcppipe).toEqual({
        command: 'npx',
        args,
        env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
      });
    }
  });

  it('VS Code: servers.mcppipe with type stdio, no env key when there is none', () => {
    const doc = JSON.parse(clientSnippet('vscode', sources)) as {
      servers: { mcppipe: Record<string, unknown> };
    };
    expect(doc.servers.mcppipe).toEqual({ type: 'stdio', command: 'npx', args });
  });

  it('Claude Code: the claude mcp add command line, quoted for a POSIX shell', () => {
    expect(clientSnippet('claude-code', sources)).toBe(
      "claude mcp add mcppipe -- npx -y mcppipe up --transport stdio --stdio 'fs=npx -y @modelcontextprotocol/server-filesystem .' --upstream http://127.0.0.1:9/mcp\n",
    );
    expect(clientSnippet('claude-code', ['--stdio', "it's"])).toContain(`'it'\\''s'`);
  });

  it('covers the four clients', () => {
    expect(snippetClients).toEqual(['claude-desktop', 'cursor', 'vscode', 'claude-code']);
  });
});
