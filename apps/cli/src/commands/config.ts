import { resolve } from 'node:path';
import { clientSnippet, snippetClients, snippetRunner } from '@mcppipe/config';
import type { SnippetClient } from '@mcppipe/config';
import { McpPipeError } from '@mcppipe/errors';
import type { Argv, CommandModule } from 'yargs';
import { upOptions } from '../up/flags.js';
import { version } from '../up/util.js';

/** Parsed flags of `mcppipe config snippet`. */
interface SnippetArgs {
  client: SnippetClient;
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
}

/** `mcppipe config snippet --client X <sources>`: prints the client entry that runs `mcppipe up --transport stdio`. */
const snippetCommand: CommandModule<object, SnippetArgs> = {
  command: 'snippet',
  describe: 'Print the entry to paste into a client (Claude Desktop, Cursor, VS Code, Claude Code)',
  builder: (y: Argv) =>
    y.options({
      client: { choices: snippetClients, demandOption: true, describe: 'The client to print the entry for' },
      upstream: upOptions.upstream,
      stdio: upOptions.stdio,
      'upstreams-file': upOptions['upstreams-file'],
    }) as unknown as Argv<SnippetArgs>,
  handler: async (args) => {
    const sources = [
      ...args.upstream.flatMap((u) => ['--upstream', u]),
      ...args.stdio.flatMap((s) => ['--stdio', s]),
      // the client starts mcppipe in another directory
      ...(args.upstreamsFile ? ['--upstreams-file', resolve(args.upstreamsFile)] : []),
    ];
    if (sources.length === 0)
      throw new McpPipeError(
        'MCPP_CLI_USAGE',
        'mcppipe config snippet needs the sources to serve: --stdio name="command", --upstream name=URL or --upstreams-file FILE (without them mcppipe would detect the client entry that runs mcppipe itself)',
      );
    // the sources are checked as `up` checks them (the same messages, exit 2): the entry must start
    const [{ resolveLayout }, { createLogger }] = await Promise.all([
      import('../up/layout.js'),
      import('../logger.js'),
    ]);
    const flags = { upstream: args.upstream, stdio: args.stdio, upstreamsFile: args.upstreamsFile };
    await resolveLayout({ ...flags, yes: false, transport: 'stdio' }, createLogger('warn', 'json'));
    // the entry runs this very mcppipe (the package is not on npm under a bare `npx -y mcppipe`)
    const runner = snippetRunner({
      scriptPath: resolve(process.argv[1] ?? ''),
      execPath: process.execPath,
      version,
    });
    process.stdout.write(clientSnippet(args.client, sources, { runner }));
  },
};

/** `mcppipe config …`: helpers for client configuration (issue 21.1). */
export const configCommand: CommandModule = {
  command: 'config',
  describe: 'Client configuration helpers',
  builder: (y: Argv) => y.command(snippetCommand).demandCommand(1, 'Run `mcppipe config snippet --help`.'),
  handler: () => {},
};
