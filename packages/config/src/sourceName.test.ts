import { describe, expect, it } from 'vitest';
import { nameForCommand, nameForUrl, uniqueName } from './sourceName.js';

describe('names for bare sources', () => {
  it.each([
    ['https://mcp.notion.com/mcp', 'notion'],
    ['https://api.githubcopilot.com/mcp/', 'githubcopilot'],
    ['http://localhost:3001/mcp', 'localhost'],
    ['http://127.0.0.1:3001', 'srv-127-0-0-1'],
    ['http://[::1]:3001', 'srv---1'],
    ['https://example.com', 'example'],
    ['https://www.Example.COM/x', 'example'],
    ['not a url', 'http'],
  ])('%s → %s', (url, name) => {
    expect(nameForUrl(url)).toBe(name);
  });

  it.each([
    ['npx -y @modelcontextprotocol/server-filesystem .', 'server-filesystem'],
    ['npx -y @modelcontextprotocol/server-memory@2026.8.31', 'server-memory'],
    ['uvx mcp-server-fetch', 'mcp-server-fetch'],
    ['python -m mcp_server_git --repo .', 'mcp_server_git'],
    ['node ./dist/My Server.js', 'my'],
    ['node /opt/srv/index.mjs', 'srv'],
    ['node /x/node_modules/@modelcontextprotocol/server-memory/dist/index.js', 'server-memory'],
    ['python3 /opt/weather/main.py', 'weather'],
    ['node ./server.js', 'server'],
    ['node dist/index.js', 'index'],
    ['node index.js', 'index'],
    ['/usr/local/bin/my-server --port 1', 'my-server'],
    ['docker run -i --rm mcp/github', 'github'],
    ['"C:\\Program Files\\srv.exe"', 'program'],
    ['npx', 'npx'],
  ])('%s → %s', (command, name) => {
    expect(nameForCommand(command)).toBe(name);
  });

  it('uniqueName adds -2, -3 and stays within 32 characters', () => {
    const taken = new Set(['a', 'a-2', 'x'.repeat(32)]);
    expect(uniqueName('a', taken)).toBe('a-3');
    expect(uniqueName('x'.repeat(32), taken)).toBe(`${'x'.repeat(30)}-2`);
    expect(uniqueName('b', taken)).toBe('b');
  });
});
