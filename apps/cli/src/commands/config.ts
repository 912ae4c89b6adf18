import { resolve } from 'node:path';
import { clientSnippet, snippetClients, snippetRunner } from '@mcppipe/config';
import type { SnippetClient } from '@mcppipe/config';
import { McpPipeError } from '@mcppipe/errors';
import type { Argv, CommandModule } from 'yargs';
import { upOptions } from '../up/flags.js';
import { version } from '../up/util.js';
import {
  passThroughArgs,
  relativePathArgs,
  snippetExtraOptions,
  unusedFlagsMessage,
  unusedUpFlags,
} from './snippetFlags.js';
import { upCoercions } from './up.js';

/** Parsed flags of `mcppipe config snippet`. */
interface SnippetArgs {
  client: SnippetClient;
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
  denyTool: string[];
  allowTool: string[];
  logLevel: string | undefined;
  [flag: string]: unknown;
}

/** `mcppipe config snippet --client X <sources>`: prints the client entry that runs `mcppipe up --transport stdio`. */
const snippetCommand: CommandModule<object, SnippetArgs> = {
  command: 'snippet',
  describe: 'Print the entry to paste into a client (Claude Desktop, Cursor, VS Code, Claude Code)',
  builder: (y: Argv) =>
    y
      .options({
        client: {
          choices: snippetClients,
          demandOption: true,
          describe: 'The client to print the entry for',
        },
        upstream: upOptions.upstream,
        stdio: upOptions.stdio,
        'upstreams-file': upOptions['upstreams-file'],
        ...snippetExtraOptions,
      })
      // the globs are checked as `up` checks them: the entry must start
      .coerce({
        'deny-tool': upCoercions['deny-tool']!,
        'allow-tool': upCoercions['allow-tool']!,
      }) as unknown as Argv<SnippetArgs>,
  handler: async (args) => {
    const unused = unusedFlagsMessage(unusedUpFlags.filter((f) => args[f] !== undefined));
    if (unused) throw new McpPipeError('MCPP_CLI_USAGE', unused);
    for (const stdio of args.stdio) {
      const relative = relativePathArgs(stdio);
      if (relative.length > 0)
        process.stderr.write(
          `mcppipe: warning: --stdio ${JSON.stringify(stdio)} has a relative path (${relative.join(', ')}): the client starts the entry in another directory; give an absolute path\n`,
        );
    }
    const sources = [
      ...args.upstream.flatMap((u) => ['--upstream', u]),
      ...args.stdio.flatMap((s) => ['--stdio', s]),
      // the client starts mcppipe in another directory
      ...(args.upstreamsFile ? ['--upstreams-file', resolve(args.upstreamsFile)] : []),
    ];
    const extra = passThroughArgs({
      'deny-tool': args.denyTool,
      'allow-tool': args.allowTool,
      'log-level': args.logLevel,
    });
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
    process.stdout.write(clientSnippet(args.client, [...sources, ...extra], { runner }));
  },
};

/** `mcppipe config …`: helpers for client configuration (issue 21.1). */
export const configCommand: CommandModule = {
  command: 'config',
  describe: 'Client configuration helpers',
  builder: (y: Argv) => y.command(snippetCommand).demandCommand(1, 'Run `mcppipe config snippet --help`.'),
  handler: () => {},
};
