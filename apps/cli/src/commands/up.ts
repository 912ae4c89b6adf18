import { McpPipeError } from '@mcppipe/errors';
import { validatePolicyConfig } from '@mcppipe/policy';
import type { Argv, CommandModule } from 'yargs';
import { envVariable, flagKinds, flagsFromEnv } from '../up/flagReaders.js';
import type { EnvFlagValue } from '../up/flagReaders.js';
import { DEFAULT_PORT, upOptions } from '../up/flags.js';
import type { LogLevel, TunnelAuthMode, UpFlag } from '../up/flags.js';
import { trace } from '../up/trace.js';

/** Parsed flags of `mcppipe up` (each also settable as `MCPPIPE_<FLAG>` in the environment). */
export interface UpArgs {
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
  /** `http` (default): Streamable HTTP at `/mcp`; `stdio`: one stdio MCP server on stdin/stdout. */
  transport: 'http' | 'stdio';
  host: string;
  port: number;
  stateless: boolean;
  hub: boolean;
  metricsAddr: string | undefined;
  logLevel: LogLevel;
  logFormat: 'pretty' | 'json';
  maxSessions: number;
  sessionIdleSecs: number;
  bodyLimit: number;
  allowedOrigins: string[];
  allowedHosts: string[];
  denyTool: string[];
  allowTool: string[];
  yes: boolean;
  /** The relay to serve through (T2), or undefined for no tunnel. */
  tunnel: string | undefined;
  /** API key of the relay account: a secret, never logged. */
  apiKey: string | undefined;
  subdomain: string | undefined;
  tunnelAuth: TunnelAuthMode;
  allowIp: string[];
  zeroKnowledge: boolean;
  /** Hold tools whose definition changed until the owner accepts them (E4; with a tunnel). */
  holdChangedTools: boolean;
}

export { DEFAULT_PORT };

/** A number flag's parser: the message quotes what was given (`got "abc"`, not `got NaN`). */
function numberFlag(flag: string, valid: (n: number) => boolean, rule: string) {
  return (given: unknown): number => {
    const text = String(given);
    const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
    if (!valid(n))
      throw new McpPipeError(
        'MCPP_CLI_USAGE',
        `--${flag} must be ${rule}, got ${JSON.stringify(text)} (from --${flag} or ${envVariable(flag)})`,
      );
    return n;
  };
}

const positive = (n: number) => Number.isSafeInteger(n) && n > 0;

/**
 * A glob flag's parser (`--deny-tool`, `--allow-tool`): checked as a policy rule's `match` is (P1). The message names
 * `source`: the flag, or its variable when the globs came from it ({@link envFlags}).
 */
function globsFlag(flag: string) {
  return (given: unknown, source = `--${flag}`): string[] => {
    const globs = (Array.isArray(given) ? given : [given]).map(String);
    for (const glob of globs) {
      const [problem] = validatePolicyConfig({ rules: [{ match: glob, action: 'deny' }] });
      if (problem !== undefined)
        throw new McpPipeError('MCPP_CLI_USAGE', `${source} ${problem.replace(/^rules\[0\]\.match: /, '')}`);
    }
    return globs;
  };
}

/** The glob flags' parsers. */
const globParsers = { 'deny-tool': globsFlag('deny-tool'), 'allow-tool': globsFlag('allow-tool') };

/** The number flags' own parsers (each runs after the single-value check). */
const valueParsers: Record<string, (given: unknown) => unknown> = {
  port: numberFlag('port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'an integer 0-65535'),
  'max-sessions': numberFlag('max-sessions', positive, 'a positive integer'),
  'session-idle-secs': numberFlag('session-idle-secs', positive, 'a positive integer'),
  'body-limit': numberFlag('body-limit', positive, 'a positive integer (bytes)'),
};

/** A single-value flag's parser: a repeated flag (yargs makes it an array) is refused before the flag's own parser. */
function singleValue(flag: string, parse: (given: unknown) => unknown = (given) => given) {
  return (given: unknown): unknown => {
    if (Array.isArray(given))
      throw new McpPipeError(
        'MCPP_CLI_USAGE',
        `--${flag} was given ${given.length === 2 ? 'twice' : `${given.length} times`}: it takes one value`,
      );
    return parse(given);
  };
}

/**
 * The parsers of `up`'s flags, by flag: every single-value flag (a repeat is refused), the number and the glob flags.
 * yargs' `coerce` and the parse without yargs (fastArgs.ts) both run them, so a value is checked, and refused with the
 * same message, either way.
 */
export const upCoercions: Record<string, (given: unknown) => unknown> = {
  ...Object.fromEntries([...flagKinds.value].map((flag) => [flag, singleValue(flag, valueParsers[flag])])),
  ...globParsers,
};

/**
 * The flags set in the environment ({@link flagsFromEnv}: booleans and comma-separated lists read there), with their
 * globs checked here, so a bad one is refused naming its variable (`MCPPIPE_DENY_TOOL "a b" has whitespace…`), not a
 * flag the user never typed. yargs' `.config()` and the parse without yargs (fastArgs.ts) both read them.
 *
 * @param env - the environment
 * @returns flag → value, as {@link flagsFromEnv}
 * @throws McpPipeError `MCPP_CLI_USAGE` naming the variable: a boolean that is not one, a bad glob
 */
export function envFlags(env: NodeJS.ProcessEnv): Partial<Record<UpFlag, EnvFlagValue>> {
  const flags = flagsFromEnv(env);
  for (const flag of ['deny-tool', 'allow-tool'] as const)
    if (flags[flag] !== undefined) globParsers[flag](flags[flag], envVariable(flag));
  return flags;
}

/**
 * Runs `mcppipe up` with parsed flags: yargs' handler, and the path without yargs for a plain command line.
 *
 * @param args - the parsed flags
 */
export async function runUpCommand(args: UpArgs): Promise<void> {
  trace('up handler');
  const { runUp } = await import('../up/run.js');
  trace('run modules loaded');
  await runUp(args);
}

/** `mcppipe up`: aggregate upstreams into one MCP server over Streamable HTTP (seed 000). */
export const upCommand: CommandModule<object, UpArgs> = {
  command: 'up',
  describe:
    'Serve many MCP servers as one at http://HOST:PORT/mcp (or on stdin/stdout with --transport stdio)',
  builder: (y: Argv) =>
    y
      .options(upOptions)
      // Only the variables that name a flag are read (not yargs' `.env()`: under `.strict()` it turned any
      // unrelated MCPPIPE_* variable into an unknown flag). The command line wins over them.
      .config(envFlags(process.env))
      .coerce(upCoercions) as unknown as Argv<UpArgs>,
  handler: runUpCommand,
};
