import { isMcpPipeError } from '@mcppipe/errors';
import type { Argv } from 'yargs';
import { withFlagSuggestions } from '@mcppipe/config';
import { configCommand } from './commands/config.js';
import { runUpCommand, upCommand } from './commands/up.js';
import { fastUpArgs } from './up/fastArgs.js';
import { upOptions } from './up/flags.js';
import { trace } from './up/trace.js';
import { version } from './up/util.js';

/** Exit codes of the `mcppipe` command. */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

/** Every flag name a user may mean (without dashes). */
const knownFlags = [...Object.keys(upOptions), 'client', 'help', 'version'];

/**
 * yargs renders a command's whole help text right after starting its handler, only to cache it for a later
 * `showHelp()`. mcppipe never shows help from a handler (failures print their own message), and for `up` that
 * rendering (cliui wrapping every flag's description) is CPU on the cold-start path before listening (issue 21).
 */
function skipHelpCache(parser: Argv): void {
  const internal = (parser as unknown as { getInternalMethods?: () => { getUsageInstance(): UsageInstance } })
    .getInternalMethods;
  const usage = internal?.call(parser).getUsageInstance();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

type UsageInstance = { cacheHelpMessage?: () => void };

/**
 * Runs the CLI: the single error boundary (STYLE.md §9). A `McpPipeError` becomes its message and
 * exit code 2 (usage/config) or 1; anything else is reported as a bug. A plain `mcppipe up …` command line is parsed
 * from the flag table without loading yargs ({@link fastUpArgs}; cold start, issue 21); anything else goes to yargs.
 *
 * @param argv - `process.argv`
 */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    const up = fastUpArgs(argv.slice(2), process.env);
    if (up) {
      await runUpCommand(up);
      return;
    }
    const [{ default: yargs }, { hideBin }] = await Promise.all([import('yargs'), import('yargs/helpers')]);
    trace('yargs loaded');
    const parser = yargs(hideBin([...argv]))
      .scriptName('mcppipe')
      .version(version)
      .command(upCommand)
      .command(configCommand)
      .demandCommand(1, 'Run `mcppipe up --help` to see how to aggregate MCP servers.')
      .strict()
      .recommendCommands()
      .wrap(Math.min(110, process.stderr.columns ?? 100))
      .fail((msg, err) => {
        // yargs' own validation errors (YError) are usage errors; anything else goes to the boundary below
        if (err && err.name !== 'YError') throw err;
        process.stderr.write(
          `mcppipe: ${withFlagSuggestions(msg, knownFlags)}\nRun \`mcppipe --help\` for usage.\n`,
        );
        process.exit(exitCodes.usage);
      });
    skipHelpCache(parser);
    await parser.parseAsync();
  } catch (err) {
    if (isMcpPipeError(err)) {
      // exit 2: something the user must change (flags, files, environment, the port), as docs/cli.md says
      const usage =
        err.code.startsWith('MCPP_CFG_') ||
        err.code.startsWith('MCPP_NS_') ||
        err.code === 'MCPP_CLI_USAGE' ||
        err.code === 'MCPP_CLI_LISTEN_FAILED' ||
        err.code === 'MCPP_STATE_INVALID_POLICY';
      // the message already names every problem (`data.errors` is for programs): print it once
      process.stderr.write(`mcppipe: ${err.message}\n`);
      process.exit(usage ? exitCodes.usage : exitCodes.failure);
    }
    process.stderr.write(
      `mcppipe: unexpected error (please report this at https://github.com/mcppipe/mcppipe/issues):\n${
        err instanceof Error ? (err.stack ?? err.message) : String(err)
      }\n`,
    );
    process.exit(exitCodes.failure);
  }
}
