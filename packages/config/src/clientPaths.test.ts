import { describe, expect, it } from 'vitest';
import { clientConfigFiles } from './clientPaths.js';

const table = (opts: Parameters<typeof clientConfigFiles>[0]) =>
  clientConfigFiles(opts).map((f) => `${f.client} ${f.scope} ${f.list} ${f.file}`);

describe('clientConfigFiles (A11)', () => {
  it('Linux', () => {
    expect(table({ homeDir: '/home/u', cwd: '/work/p', platform: 'linux', env: {} })).toEqual([
      'claude-code project mcpServers /work/p/.mcp.json',
      'claude-code local projects.mcpServers /home/u/.claude.json',
      'claude-code user mcpServers /home/u/.claude.json',
      'claude-desktop user mcpServers /home/u/.config/Claude/claude_desktop_config.json',
      'cursor project mcpServers /work/p/.cursor/mcp.json',
      'cursor user mcpServers /home/u/.cursor/mcp.json',
      'vscode project servers /work/p/.vscode/mcp.json',
      'vscode user servers /home/u/.config/Code/User/mcp.json',
      'windsurf user mcpServers /home/u/.codeium/windsurf/mcp_config.json',
      'gemini-cli project mcpServers /work/p/.gemini/settings.json',
      'gemini-cli user mcpServers /home/u/.gemini/settings.json',
      'codex user mcp_servers /home/u/.codex/config.toml',
    ]);
  });

  it('Linux with XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR and CODEX_HOME', () => {
    const files = table({
      homeDir: '/home/u',
      cwd: '/work/p',
      platform: 'linux',
      env: { XDG_CONFIG_HOME: '/xdg', CLAUDE_CONFIG_DIR: '/cc', CODEX_HOME: '/cx' },
    });
    expect(files).toContain('claude-code user mcpServers /cc/.claude.json');
    expect(files).toContain('claude-desktop user mcpServers /xdg/Claude/claude_desktop_config.json');
    expect(files).toContain('vscode user servers /xdg/Code/User/mcp.json');
    expect(files).toContain('codex user mcp_servers /cx/config.toml');
  });

  it('macOS', () => {
    const files = table({
      homeDir: '/Users/u',
      cwd: '/p',
      platform: 'darwin',
      env: { XDG_CONFIG_HOME: '/ignored' },
    });
    expect(files).toContain(
      'claude-desktop user mcpServers /Users/u/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(files).toContain('vscode user servers /Users/u/Library/Application Support/Code/User/mcp.json');
    expect(files).toContain('windsurf user mcpServers /Users/u/.codeium/windsurf/mcp_config.json');
  });

  it('Windows: %APPDATA%, backslashes', () => {
    const files = table({
      homeDir: 'C:\\Users\\u',
      cwd: 'D:\\work\\p',
      platform: 'win32',
      env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
    });
    expect(files).toContain(
      'claude-desktop user mcpServers C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    expect(files).toContain('claude-code project mcpServers D:\\work\\p\\.mcp.json');
    expect(files).toContain('cursor user mcpServers C:\\Users\\u\\.cursor\\mcp.json');
    expect(files).toContain('codex user mcp_servers C:\\Users\\u\\.codex\\config.toml');
    expect(table({ homeDir: 'C:\\Users\\u', cwd: 'D:\\p', platform: 'win32', env: {} })).toContain(
      'claude-desktop user mcpServers C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
  });

  it('a file that is both project and user scope (cwd = home) is listed once', () => {
    const files = table({ homeDir: '/home/u', cwd: '/home/u', platform: 'linux', env: {} });
    expect(files.filter((f) => f.endsWith('/home/u/.cursor/mcp.json'))).toEqual([
      'cursor project mcpServers /home/u/.cursor/mcp.json',
    ]);
    expect(files.filter((f) => f.includes('.claude.json'))).toHaveLength(2);
  });
});
