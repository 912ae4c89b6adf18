/**
 * `mcppipe-gateway accounts add|list|remove` and `keys create|list|revoke` (DESIGN.md T1): manage the relay's
 * accounts and API keys in `<data-dir>/accounts.json`, whether or not a gateway runs on that directory (a
 * running one re-reads the file within a second). Passwords are read from stdin or a no-echo prompt and never
 * printed; a new key is printed alone on stdout, once.
 *
 * @module
 */
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { usage } from '../flagParsers.js';
import { readPassword } from './hashPassword.js';

interface Common {
  dataDir: string;
  redis?: string;
}

const dataDir = (y: Argv) =>
  y
    .option('data-dir', {
      type: 'string',
      default: process.env['DATA_DIR'] || './data',
      describe: 'The gateway state directory (same as the server) [DATA_DIR]',
    })
    .option('redis', {
      type: 'string',
      default: process.env['MCPPIPE_REDIS_URL'] || undefined,
      describe:
        'The Redis of many nodes (same as the server); every node sees a change at once [MCPPIPE_REDIS_URL]',
    });

/** Connections to close when the command is done (a Redis client keeps the process alive). */
const opened: Array<() => Promise<void>> = [];

const store = async (args: Common) => {
  const { AccountStore } = await import('@mcppipe/oauth');
  if (!args.redis) return AccountStore.open(args.dataDir);
  const { openRedisStore } = await import('@mcppipe/store');
  const shared = await openRedisStore({ url: args.redis });
  opened.push(() => shared.close());
  return AccountStore.open(args.dataDir, { store: shared });
};

/** Runs a command, then closes what it opened. */
const closing =
  <A>(fn: (args: A) => Promise<void>) =>
  async (args: A): Promise<void> => {
    try {
      await fn(args);
    } finally {
      await Promise.allSettled(opened.splice(0).map((close) => close()));
    }
  };

const date = (ms: number) => new Date(ms).toISOString();

/** Where a command's change went (the relay must read the same place): the file, or Redis (its URL redacted). */
const where = async (args: Common): Promise<string> =>
  args.redis
    ? `Redis at ${(await import('@mcppipe/store')).redactRedisUrl(args.redis)}`
    : join(args.dataDir, 'accounts.json');

/** Below this many characters `accounts add` warns (as the gateway does for its admin password). */
const MIN_PASSWORD_CHARS = 12;

/** `accounts <add|list|remove>`. */
export const accountsCommand: CommandModule = {
  command: 'accounts',
  describe: 'Manage tunnel relay accounts (T1)',
  builder: (y) =>
    dataDir(y)
      .command<Common & { slug: string; passwordStdin?: boolean }>(
        'add <slug>',
        'Add an account; the password comes from stdin (--password-stdin) or a no-echo prompt',
        (a) =>
          a
            .positional('slug', { type: 'string', demandOption: true })
            .option('password-stdin', { type: 'boolean' }),
        closing(async (args) => {
          if (process.stdin.isTTY && args.passwordStdin) throw usage('--password-stdin: stdin is a terminal');
          if (!process.stdin.isTTY && !args.passwordStdin)
            throw usage(
              `stdin is not a terminal, so there is no prompt: pipe the password with --password-stdin (accounts add ${args.slug} --password-stdin < password.txt)`,
            );
          const password = await readPassword();
          if ([...password].length < MIN_PASSWORD_CHARS)
            process.stderr.write(
              `warning: the password is shorter than ${MIN_PASSWORD_CHARS} characters; the owner's password approves OAuth clients for every tunnel of "${args.slug}": use a longer passphrase\n`,
            );
          await (await store(args)).addAccount(args.slug, password);
          process.stderr.write(`account "${args.slug}" added (in ${await where(args)})\n`);
        }),
      )
      .command<Common>(
        'list',
        'List accounts',
        (a) => a as unknown as Argv<Common>,
        closing(async (args) => {
          for (const a of (await store(args)).listAccounts())
            process.stdout.write(`${a.slug}\t${date(a.createdAt)}\n`);
        }),
      )
      .command<Common & { slug: string }>(
        'remove <slug>',
        'Remove an account and its keys (its live tunnels close)',
        (a) => a.positional('slug', { type: 'string', demandOption: true }),
        closing(async (args) => {
          await (await store(args)).removeAccount(args.slug);
          process.stderr.write(`account "${args.slug}" removed\n`);
        }),
      )
      .demandCommand(1),
  handler: () => {},
};

/** `keys <create|list|revoke>`. */
export const keysCommand: CommandModule = {
  command: 'keys',
  describe: 'Manage tunnel API keys (T1)',
  builder: (y) =>
    dataDir(y)
      .command<Common & { account: string; name?: string }>(
        'create',
        'Create an API key; prints the key alone on stdout (shown once)',
        (a) =>
          a
            .option('account', { type: 'string', demandOption: true, describe: 'Owner account' })
            .option('name', {
              type: 'string',
              describe: 'A label for the key, unique in the account (default key-1, key-2, …)',
            }),
        closing(async (args) => {
          const { id, name, key } = await (await store(args)).createKey(args.account, args.name);
          process.stderr.write(
            `key ${id} created for "${args.account}" (name "${name}") in ${await where(args)} (the key is on stdout, shown only this once)\n`,
          );
          process.stdout.write(`${key}\n`);
        }),
      )
      .command<Common & { account?: string }>(
        'list',
        'List keys (ids and names, never the keys)',
        (a) => a.option('account', { type: 'string' }),
        closing(async (args) => {
          const keys = await store(args);
          if (args.account !== undefined) keys.requireAccount(args.account);
          for (const k of keys.listKeys(args.account))
            process.stdout.write(`${k.id}\t${k.account}\t${k.name ?? ''}\t${date(k.createdAt)}\n`);
        }),
      )
      .command<Common & { id: string }>(
        'revoke <id>',
        'Revoke a key (its live tunnels close within a second)',
        (a) => a.positional('id', { type: 'string', demandOption: true }),
        closing(async (args) => {
          await (await store(args)).revokeKey(args.id);
          process.stderr.write(`key ${args.id} revoked\n`);
        }),
      )
      .demandCommand(1),
  handler: () => {},
};
