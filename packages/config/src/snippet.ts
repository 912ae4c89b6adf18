/**
 * The entry a user pastes into a client's config to run `mcppipe up --transport stdio` there (issue 21.1).
 */
import type { ClientId } from './clientPaths.js';

/** The clients {@link clientSnippet} prints an entry for. */
export type SnippetClient = Extract<ClientId, 'claude-desktop' | 'cursor' | 'vscode' | 'claude-code'>;

/** The clients {@link clientSnippet} prints an entry for, in help order. */
export const snippetClients: readonly SnippetClient[] = ['claude-desktop', 'cursor', 'vscode', 'claude-code'];

/** How a client starts mcppipe: the command and the words before `up`. */
export interface SnippetRunner {
  command: string;
  args: readonly string[];
}

/** Where the mcppipe that prints a snippet runs from (`process.argv[1]`, `process.execPath`, its version). */
export interface SnippetRunnerOptions {
  /** The CLI script, absolute (`process.argv[1]`). */
  scriptPath: string;
  /** The node binary, absolute (`process.execPath`). */
  execPath: string;
  /** The running mcppipe's version. */
  version: string;
}

/**
 * The command that runs the same mcppipe that prints the snippet: from an npx cache (the script is inside a `_npx`
 * directory), `npx -y mcppipe@<version>`; otherwise this node binary by its absolute path (desktop hosts often have no
 * `node` on their PATH) and the script's absolute path.
 *
 * @param options - the script, the node binary and the version
 * @returns the command and the words before `up`
 * @example From a checkout
 * ```ts
 * snippetRunner({ scriptPath: '/src/mcppipe/apps/cli/dist/cli.js', execPath: '/usr/bin/node', version: '0.1.0' });
 * // { command: '/usr/bin/node', args: ['/src/mcppipe/apps/cli/dist/cli.js'] }
 * ```
 */
export function snippetRunner(options: SnippetRunnerOptions): SnippetRunner {
  if (options.scriptPath.split(/[/\\]/).includes('_npx'))
    return { command: 'npx', args: ['-y', `mcppipe@${options.version}`] };
  return { command: options.execPath, args: [options.scriptPath] };
}

/** What {@link clientSnippet} puts in the entry beside the sources. */
export interface ClientSnippetOptions {
  /** How to start mcppipe (see {@link snippetRunner}). */
  runner: SnippetRunner;
  /** Variables the entry sets (JSON shapes: `env`; Claude Code: `-e KEY=VALUE`); omitted when empty. Default none. */
  env?: Readonly<Record<string, string>>;
}

/** POSIX single quoting where a word needs it. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The client entry that runs mcppipe as a stdio server over the given sources: the runner, `up --transport stdio` and
 * the source flags. Claude Desktop and Cursor: `{ "mcpServers": { "mcppipe": { command, args } } }`; VS Code:
 * `{ "servers": { "mcppipe": { "type": "stdio", command, args } } }` (JSON, 2-space indented); Claude Code: the
 * `claude mcp add mcppipe -- …` command line (POSIX shell quoting).
 *
 * @param client - which client's shape
 * @param sourceArgs - the source flags as separate words, e.g. `['--stdio', 'fs=npx -y pkg']` (a relative
 *   `--upstreams-file` should be made absolute first: the client starts mcppipe in another directory)
 * @param options - the runner (how to start mcppipe) and the variables the entry sets
 * @returns the text to paste, ending with a newline
 */
export function clientSnippet(
  client: SnippetClient,
  sourceArgs: readonly string[],
  options: ClientSnippetOptions,
): string {
  const env = options.env ?? {};
  const command = options.runner.command;
  const args = [...options.runner.args, 'up', '--transport', 'stdio', ...sourceArgs];
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
