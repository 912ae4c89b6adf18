/**
 * Where local MCP clients keep their server lists (DESIGN.md A11). Pure: home, working directory,
 * platform and environment are inputs.
 */
import { posix, win32 } from 'node:path';

/** The clients mcppipe detects servers in. */
export type ClientId =
  'claude-code' | 'claude-desktop' | 'cursor' | 'vscode' | 'windsurf' | 'gemini-cli' | 'codex';

/** Human names of the clients, for prompts and messages. */
export const clientNames: Readonly<Record<ClientId, string>> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex',
};

/**
 * Which part of a file lists servers: `mcpServers` (most clients), `projects[<cwd>].mcpServers`
 * (Claude Code's local scope in `~/.claude.json`), `servers` (VS Code, with `inputs`) or
 * `mcp_servers` (Codex TOML).
 */
export type ServerListKey = 'mcpServers' | 'projects.mcpServers' | 'servers' | 'mcp_servers';

/** One file a client may keep servers in. */
export interface ClientConfigFile {
  /** The client that writes this file. */
  client: ClientId;
  /** `user`: all projects; `project`: the working directory's shared file; `local`: this user in this project. */
  scope: 'user' | 'project' | 'local';
  /** Absolute path, in the platform's syntax. */
  file: string;
  /** `json` (comments and trailing commas allowed) or `toml` (Codex). */
  format: 'json' | 'toml';
  /** Where in the file the servers are. */
  list: ServerListKey;
}

/** Inputs of {@link clientConfigFiles} and `detectClientServers`. */
export interface ClientLocationOptions {
  /** The user's home directory (`os.homedir()`). */
  homeDir: string;
  /** The working directory, for project-scoped files (`process.cwd()`). */
  cwd: string;
  /** `process.platform`. Paths use `path.win32` syntax for `win32`. */
  platform: NodeJS.Platform;
  /** Environment: `APPDATA` (Windows), `XDG_CONFIG_HOME` (Linux), `CLAUDE_CONFIG_DIR`, `CODEX_HOME`. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The files to look in, in detection order (which also decides whose key names a server found in
 * several clients): Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Gemini CLI, Codex; within
 * a client, project before user. A path listed twice (cwd = home) is listed once.
 *
 * | client | files |
 * | --- | --- |
 * | Claude Code | `<cwd>/.mcp.json`; `~/.claude.json` `projects[<cwd>].mcpServers` and `mcpServers` (`$CLAUDE_CONFIG_DIR/.claude.json` if set) |
 * | Claude Desktop | Linux `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` (`~/.config`); macOS `~/Library/Application Support/Claude/…`; Windows `%APPDATA%\Claude\…` |
 * | Cursor | `<cwd>/.cursor/mcp.json`, `~/.cursor/mcp.json` |
 * | VS Code | `<cwd>/.vscode/mcp.json`; user `Code/User/mcp.json` in the same config directory as Claude Desktop |
 * | Windsurf | `~/.codeium/windsurf/mcp_config.json` |
 * | Gemini CLI | `<cwd>/.gemini/settings.json`, `~/.gemini/settings.json` |
 * | Codex | `$CODEX_HOME/config.toml` (`~/.codex`) |
 *
 * @param options - home, working directory, platform and environment
 * @returns the candidate files (most do not exist)
 * @example Listing where mcppipe looks
 * ```ts
 * for (const f of clientConfigFiles({ homeDir: os.homedir(), cwd: process.cwd(), platform: process.platform, env: process.env }))
 *   console.log(f.client, f.file);
 * ```
 */
export function clientConfigFiles(options: ClientLocationOptions): ClientConfigFile[] {
  const { homeDir: home, cwd, platform, env } = options;
  const p = platform === 'win32' ? win32 : posix;
  const appData =
    platform === 'win32'
      ? (env['APPDATA'] ?? p.join(home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? p.join(home, 'Library', 'Application Support')
        : (env['XDG_CONFIG_HOME'] ?? p.join(home, '.config'));
  const claudeJson = p.join(env['CLAUDE_CONFIG_DIR'] ?? home, '.claude.json');
  const files: ClientConfigFile[] = [
    {
      client: 'claude-code',
      scope: 'project',
      file: p.join(cwd, '.mcp.json'),
      format: 'json',
      list: 'mcpServers',
    },
    { client: 'claude-code', scope: 'local', file: claudeJson, format: 'json', list: 'projects.mcpServers' },
    { client: 'claude-code', scope: 'user', file: claudeJson, format: 'json', list: 'mcpServers' },
    {
      client: 'claude-desktop',
      scope: 'user',
      file: p.join(appData, 'Claude', 'claude_desktop_config.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'cursor',
      scope: 'project',
      file: p.join(cwd, '.cursor', 'mcp.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'cursor',
      scope: 'user',
      file: p.join(home, '.cursor', 'mcp.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'vscode',
      scope: 'project',
      file: p.join(cwd, '.vscode', 'mcp.json'),
      format: 'json',
      list: 'servers',
    },
    {
      client: 'vscode',
      scope: 'user',
      file: p.join(appData, 'Code', 'User', 'mcp.json'),
      format: 'json',
      list: 'servers',
    },
    {
      client: 'windsurf',
      scope: 'user',
      file: p.join(home, '.codeium', 'windsurf', 'mcp_config.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'gemini-cli',
      scope: 'project',
      file: p.join(cwd, '.gemini', 'settings.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'gemini-cli',
      scope: 'user',
      file: p.join(home, '.gemini', 'settings.json'),
      format: 'json',
      list: 'mcpServers',
    },
    {
      client: 'codex',
      scope: 'user',
      file: p.join(env['CODEX_HOME'] ?? p.join(home, '.codex'), 'config.toml'),
      format: 'toml',
      list: 'mcp_servers',
    },
  ];
  const seen = new Set<string>();
  return files.filter((f) => {
    const key = `${f.file}\0${f.list}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
