/**
 * `mcppipe-gateway`: the command-line entry point and its single error boundary (STYLE.md §9). A
 * `McpPipeError` becomes its message and exit code 2 (something the user must change: a flag, the environment,
 * a file, the port) or 1; anything else is reported as a bug. docs/gateway.md "Exit codes" lists them.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { withFlagSuggestions } from '@mcppipe/config';
import { isMcpPipeError } from '@mcppipe/errors';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { accountsCommand, keysCommand } from './commands/accounts.js';
import { hashPasswordCommand } from './commands/hashPassword.js';
import { serveCommand } from './commands/serve.js';
import { SETTINGS } from './settings.js';

/** Codes that exit 2 (with every `MCPP_CFG_*`): the message says what to change. */
const USAGE = new Set([
  'MCPP_CLI_USAGE',
  'MCPP_CLI_LISTEN_FAILED',
  'MCPP_OAUTH_KEY_CORRUPT',
  'MCPP_GW_PUBLIC_URL_REQUIRED',
  'MCPP_OAUTH_INVALID_OPTIONS',
  'MCPP_OAUTH_NO_PASSWORD',
  'MCPP_OAUTH_ACCOUNT_INVALID',
  'MCPP_OAUTH_ACCOUNT_NOT_FOUND', // an account or key the user named does not exist
  'MCPP_CAPTURE_INVALID_OPTIONS',
]);

/** The flags a mistyped one may mean (without dashes), for yargs' `Unknown argument`: the default command's. */
const KNOWN_FLAGS = [...Object.values(SETTINGS).map((s) => s.flag.slice(2)), 'help', 'version'];

/** The settings read from the environment only (secrets stay out of `ps`), shown under `--help`. */
const ENVIRONMENT_ONLY = `Read from the environment only (docs/gateway.md):
  MCPPIPE_ADMIN_PASSWORD       the owner password (or MCPPIPE_ADMIN_PASSWORD_HASH: hash-password)
  MCPPIPE_API_TOKEN            admin bearer token of the /api routes (unset: none)
  MCPPIPE_NODE_SECRET          --redis with --tunnel-zone: 32+ characters, the same on every node
  MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1  webhook targets on loopback and private addresses allowed
  MCPPIPE_HOLD_CHANGED_TOOLS=1      changed tools hidden until accepted`;

/**
 * Runs the CLI.
 *
 * @param argv - `process.argv`
 */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await yargs(hideBin([...argv]))
      .scriptName('mcppipe-gateway')
      .version(
        (createRequire(import.meta.url)('@mcppipe/gateway/package.json') as { version: string }).version,
      )
      .command(serveCommand)
      .command(hashPasswordCommand)
      .command(accountsCommand)
      .command(keysCommand)
      .strict()
      .epilogue(ENVIRONMENT_ONLY)
      .wrap(Math.min(110, process.stderr.columns ?? 100))
      .fail((msg, err) => {
        if (err) throw err;
        process.stderr.write(`mcppipe-gateway: ${withFlagSuggestions(msg, KNOWN_FLAGS)}\n`);
        process.exit(2);
      })
      .parseAsync();
  } catch (err) {
    if (isMcpPipeError(err)) {
      // the message already names every problem (`data.errors` is for programs): print it once
      process.stderr.write(`mcppipe-gateway: ${err.message}\n`);
      process.exit(USAGE.has(err.code) || err.code.startsWith('MCPP_CFG_') ? 2 : 1);
    }
    process.stderr.write(
      `mcppipe-gateway: unexpected error (please report this at https://github.com/mcppipe/mcppipe/issues):\n${
        err instanceof Error ? (err.stack ?? err.message) : String(err)
      }\n`,
    );
    process.exit(1);
  }
}

process.stderr.on('error', () => {}); // a closed stderr must not take the gateway down
void main(process.argv);
