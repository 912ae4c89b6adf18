/**
 * The flag table of `mcppipe up` (flags.ts) as it is read without yargs: by how many values each flag takes (argv.ts,
 * fastArgs.ts), and from the environment, one `MCPPIPE_*` variable per flag (commands/up.ts, earlySources.ts).
 *
 * This module imports nothing at run time but the table: the cold start loads it before anything else.
 *
 * @module
 */
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

/**
 * The flag values set in the environment: only the variables that name a flag of `up` are read (issue 13.10), so an
 * unrelated `MCPPIPE_*` variable (a wrapper's `MCPPIPE_CMD`, the supervisor's own `MCPPIPE_UPSTREAM_*` knobs) is
 * ignored here. The command line wins over these.
 *
 * @param env - the environment
 * @returns flag → value as a string (yargs parses it as it would the same text on the command line)
 */
export function flagsFromEnv(env: NodeJS.ProcessEnv): Partial<Record<UpFlag, string>> {
  const out: Partial<Record<UpFlag, string>> = {};
  for (const flag of Object.keys(upOptions) as UpFlag[]) {
    const value = env[envVariable(flag)];
    if (value !== undefined) out[flag] = value;
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
