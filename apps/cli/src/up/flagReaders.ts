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
