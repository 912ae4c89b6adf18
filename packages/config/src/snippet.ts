/**
 * The entry a user pastes into a client's config to run `mcppipe up --transport stdio` there (issue 21.1).
 */
import type { ClientId } from './clientPaths.js';

/** The clients {@link clientSnippet} prints an entry for. */
export type SnippetClient = Extract<ClientId, 'claude-desktop' | 'cursor' | 'vscode' | 'claude-code'>;

/** The clients {@link clientSnippet} prints an entry for, in help order. */
export const snippetClients: readonly SnippetClient[] = ['claude-desktop', 'cursor', 'vscode', 'claude-code'];

/** POSIX single quoting where a word needs it. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The client entry that runs mcppipe as a stdio server over the given sources: `npx -y mcppipe up --transport stdio`
 * and the source flags. Claude Desktop and Cursor: `{ "mcpServers": { "mcppipe": { command, args } } }`; VS Code:
 * `{ "servers": { "mcppipe": { "type": "stdio", command, args } } }` (JSON, 2-space indented); Claude Code: the
 * `claude mcp add mcppipe -- …` command line (POSIX shell quoting).
 *
 * @param client - which client's shape
 * @param sourceArgs - the source flags as separate words, e.g. `['--stdio', 'fs=npx -y pkg']` (a relative
 *   `--upstreams-file` should be made absolute first: the client starts mcppipe in another directory)
 * @param env - variables the entry sets (JSON shapes: `env`; Claude Code: `-e KEY=VALUE`); omitted when empty
 * @returns the text to paste, ending with a newline
 */
export function clientSnippet(
  client: SnippetClient,
  sourceArgs: readonly string[],
  env: Readonly<Record<string, string>> = {},
): string {
  const command = 'npx';
  const args = ['-y', 'mcppipe', 'up', '--transport', 'stdio', ...sourceArgs];
  const hasEnv = Object.keys(env).length > 0;
  if (client === 'claude-code') {
    const e = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    return `${['claude', 'mcp', 'add', 'mcppipe', ...e, '--', command, ...args].map(shellWord).join(' ')}\n`;
  }
  const entry = {
    ...(client === 'vscode' ? { type: 'stdio' } : {}),
    command,
    args,
    ...(hasEnv ? { env: { ...env } } : {}),
  };
  const doc = client === 'vscode' ? { servers: { mcppipe: entry } } : { mcpServers: { mcppipe: entry } };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
