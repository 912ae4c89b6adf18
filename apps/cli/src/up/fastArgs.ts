import type { Options } from 'yargs';
import { envFlags, upCoercions } from '../commands/up.js';
import type { UpArgs } from '../commands/up.js';
import { scanUpArgv } from './argv.js';
import { flagKinds } from './flagReaders.js';
import { upOptions } from './flags.js';
import type { UpFlag } from './flags.js';

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The flags of a plain `mcppipe up …` command line, parsed without loading yargs (cold start, issue 21): from the
 * one flag table (flags.ts), with its defaults and choices, the `MCPPIPE_*` variables as {@link envFlags} reads them (the
 * command line wins), and the same number and glob parsers as yargs' (`upCoercions`). Declines (undefined) whatever
 * it would not read exactly as yargs does: then yargs parses the command line, so every message and exit code stays
 * yargs' (an unknown flag, a bad value, `--help`).
 *
 * @param argv - the arguments after `node cli.js`
 * @param env - the environment
 * @returns the parsed flags, equal to what yargs hands `up`'s handler, or undefined
 */
export function fastUpArgs(argv: readonly string[], env: NodeJS.ProcessEnv): UpArgs | undefined {
  const given = scanUpArgv(argv);
  if (!given) return undefined;
  const fromEnv = envFlags(env); // a bad variable is refused here, naming it, as yargs' builder refuses it
  const args: Record<string, unknown> = {};
  for (const [flag, option] of Object.entries(upOptions) as [UpFlag, Options][]) {
    const cli = given.get(flag);
    const variable = fromEnv[flag];
    let value: unknown;
    if (cli !== undefined)
      value = flagKinds.boolean.has(flag) ? true : flagKinds.array.has(flag) ? cli : cli[0];
    else if (variable !== undefined) {
      if (typeof variable === 'string' && (variable === '' || /^["']/.test(variable))) return undefined;
      value = Array.isArray(variable) ? [...variable] : variable;
    } else value = Array.isArray(option.default) ? [...(option.default as unknown[])] : option.default;
    if (value !== undefined && option.choices && !(option.choices as unknown[]).includes(value))
      return undefined;
    const coerce = upCoercions[flag];
    if (coerce) {
      try {
        value = coerce(value);
      } catch {
        return undefined; // yargs runs the same parser and reports its error
      }
    }
    args[camel(flag)] = value;
  }
  return args as unknown as UpArgs;
}
