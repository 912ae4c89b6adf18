/**
 * The flag table of `mcppipe up` (flags.ts) as it is read without yargs: by how many values each flag takes (argv.ts,
 * fastArgs.ts), and from the environment, one `MCPPIPE_*` variable per flag (commands/up.ts, earlySources.ts).
 *
 * This module imports nothing at run time but the table and the error class: the cold start loads it before anything
 * else.
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import type { Options } from 'yargs';
import { upOptions } from './flags.js';
import type { UpFlag } from './flags.js';

/** The flags, by how many values they take, and their short aliases (`y` → `yes`), for a parse without yargs. */
export const flagKinds: {
  boolean: Set<string>;
  value: Set<string>;
  array: Set<string>;
  aliases: Map<string, string>;
} = (() => {
  const kinds = {
    boolean: new Set<string>(),
    value: new Set<string>(),
    array: new Set<string>(),
    aliases: new Map<string, string>(),
  };
  for (const [name, o] of Object.entries(upOptions) as [string, Options][]) {
    const kind = o.type === 'boolean' ? kinds.boolean : o.array ? kinds.array : kinds.value;
    kind.add(name);
    if (typeof o.alias === 'string') kinds.aliases.set(o.alias, name);
  }
  return kinds;
})();

/**
 * The environment variable that sets a flag: `MCPPIPE_` and the flag in upper case, `-` as `_`.
 *
 * @param flag - a flag without its dashes (`upstreams-file`)
 * @returns its variable (`MCPPIPE_UPSTREAMS_FILE`)
 */
export function envVariable(flag: string): string {
  return `MCPPIPE_${flag.toUpperCase().replaceAll('-', '_')}`;
}

/** A flag's value as its variable gives it: the text of a single-value flag, a boolean, or a list. */
export type EnvFlagValue = string | boolean | string[];

/** The spellings of a boolean variable, lower-cased (`MCPPIPE_HUB=1`, `=Yes`, `=off`, `=`). */
const booleanWords = new Map<string, boolean>([
  ...['1', 'true', 'yes', 'on'].map((w) => [w, true] as const),
  ...['0', 'false', 'no', 'off', ''].map((w) => [w, false] as const),
]);

/**
 * A boolean flag's variable: `1`, `true`, `yes`, `on` are true; `0`, `false`, `no`, `off` and empty are false (any
 * case, spaces around ignored).
 *
 * @param variable - the variable (`MCPPIPE_HUB`), for the message
 * @param value - its value
 * @throws McpPipeError `MCPP_CLI_USAGE` naming the variable and the value for any other value
 */
export function envBoolean(variable: string, value: string): boolean {
  const b = booleanWords.get(value.trim().toLowerCase());
  if (b === undefined)
    throw new McpPipeError(
      'MCPP_CLI_USAGE',
      `${variable} must be 1, true, yes or on (or 0, false, no, off or empty), got ${JSON.stringify(value)}`,
    );
  return b;
}

/**
 * A comma-separated list (`--allow-ip a,b`, `MCPPIPE_DENY_TOOL=a,b`): each value split at commas, trimmed, empty
 * items dropped.
 *
 * @param values - the values as given
 * @returns the items
 */
export function commaList(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The list flags whose variable is one command or URL, never split at commas (a command may contain one). */
const oneItemLists = new Set(['upstream', 'stdio']);

/**
 * The flag values set in the environment, the one place `up` reads them: only the variables that name a flag of `up`
 * are read (issue 13.10), so an unrelated `MCPPIPE_*` variable (a wrapper's `MCPPIPE_CMD`, the supervisor's own
 * `MCPPIPE_UPSTREAM_*` knobs) is ignored here. A boolean flag's variable is read by {@link envBoolean}; a list flag's
 * is comma-separated ({@link commaList}), but `MCPPIPE_UPSTREAM` and `MCPPIPE_STDIO` are one upstream each. The
 * command line wins over these.
 *
 * @param env - the environment
 * @returns flag → value: a single-value flag's text (yargs and fastArgs.ts parse it as the same text on the command
 *   line), a boolean, or a list
 * @throws McpPipeError `MCPP_CLI_USAGE` for a boolean variable that is not one of {@link envBoolean}'s words
 */
export function flagsFromEnv(env: NodeJS.ProcessEnv): Partial<Record<UpFlag, EnvFlagValue>> {
  const out: Partial<Record<UpFlag, EnvFlagValue>> = {};
  for (const flag of Object.keys(upOptions) as UpFlag[]) {
    const variable = envVariable(flag);
    const value = env[variable];
    if (value === undefined) continue;
    if (flagKinds.boolean.has(flag)) out[flag] = envBoolean(variable, value);
    else if (flagKinds.array.has(flag)) out[flag] = oneItemLists.has(flag) ? [value] : commaList([value]);
    else out[flag] = value;
  }
  return out;
}

/**
 * Which of `flags` were given rather than left at their default: on the command line (`--port 1`, `--port=1`, or
 * yargs' camelCase spelling `--allowedOrigins`; not after `--`), else by their variable (what {@link flagsFromEnv}
 * reads).
 *
 * @param argv - the arguments after `node cli.js`
 * @param env - the environment
 * @param flags - the flags to look for
 * @returns each given flag → how it was given (`--port`, or `MCPPIPE_PORT`), in the order of `flags`
 */
export function givenFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  flags: readonly UpFlag[],
): Map<UpFlag, string> {
  const end = argv.indexOf('--');
  const words = end < 0 ? argv : argv.slice(0, end);
  const fromEnv = flagsFromEnv(env);
  const given = new Map<UpFlag, string>();
  for (const flag of flags) {
    const camel = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const onCommandLine = words.some((w) =>
      [flag, camel].some((f) => w === `--${f}` || w.startsWith(`--${f}=`)),
    );
    if (onCommandLine) given.set(flag, `--${flag}`);
    else if (fromEnv[flag] !== undefined) given.set(flag, envVariable(flag));
  }
  return given;
}
