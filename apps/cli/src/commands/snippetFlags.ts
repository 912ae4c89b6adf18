/**
 * The flags of `mcppipe config snippet` beyond its sources: what passes through into the entry's `up` command line,
 * which of `up`'s flags the entry cannot use, and the relative paths a `--stdio` command would resolve elsewhere.
 *
 * @module
 */
import type { Options } from 'yargs';
import { upOptions } from '../up/flags.js';
import type { UpFlag } from '../up/flags.js';

/** `up`'s flags copied into the entry's command line as given: a stdio client needs its tool policy there. */
export const passThroughFlags = ['deny-tool', 'allow-tool', 'log-level'] as const;

/** The flags of `up` that a snippet reads as sources, or passes through. */
const snippetFlags = new Set<string>(['upstream', 'stdio', 'upstreams-file', ...passThroughFlags]);

/** `up`'s other flags: meaningless in an entry that runs `mcppipe up --transport stdio` (`--port`, `--hub`, …). */
export const unusedUpFlags: readonly UpFlag[] = (Object.keys(upOptions) as UpFlag[]).filter(
  (f) => !snippetFlags.has(f),
);

/** A flag's yargs option without its default (yargs reads `default: undefined` on a list as `[undefined]`). */
function withoutDefault(option: Options): Options {
  const copy = { ...option };
  delete copy.default;
  return copy;
}

/**
 * The yargs options of the pass-through flags (no default: only what is given is copied) and, hidden, of the unused
 * ones, so that they are read (and refused by {@link unusedFlagsMessage}) rather than reported as unknown.
 */
export const snippetExtraOptions: Record<string, Options> = {
  'deny-tool': upOptions['deny-tool'],
  'allow-tool': upOptions['allow-tool'],
  'log-level': { choices: upOptions['log-level'].choices, describe: upOptions['log-level'].describe },
  ...Object.fromEntries(unusedUpFlags.map((f) => [f, { ...withoutDefault(upOptions[f]), hidden: true }])),
};

/**
 * The pass-through flags as the entry's `up` arguments.
 *
 * @param given - flag → value (a list for the repeatable ones), undefined when not given
 * @returns e.g. `['--deny-tool', 'files__write_*', '--log-level', 'debug']`
 */
export function passThroughArgs(
  given: Partial<Record<(typeof passThroughFlags)[number], unknown>>,
): string[] {
  return passThroughFlags.flatMap((flag) => {
    const value = given[flag];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).flatMap((v) => [`--${flag}`, String(v)]);
  });
}

/**
 * The refusal of `up` flags given to `config snippet`, or undefined when there are none.
 *
 * @param given - the unused flags that were given (`port`)
 */
export function unusedFlagsMessage(given: readonly string[]): string | undefined {
  if (given.length === 0) return undefined;
  const names = given.map((f) => `--${f}`).join(' and ');
  return `${names} ${given.length > 1 ? 'are' : 'is'} not used by config snippet (the snippet runs mcppipe with --transport stdio)`;
}

/**
 * The arguments of a `--stdio` command that look like relative paths (`.`, `..`, `./x`, `../x`, also as
 * `--opt=./x`): the client starts the entry in another directory, where they name something else.
 *
 * @param stdio - a `--stdio` value, `[name=]COMMAND ARGS`
 * @returns those arguments, as written
 */
export function relativePathArgs(stdio: string): string[] {
  return stdio
    .split(/\s+/)
    .map((word) => word.replace(/^["']|["']$/g, ''))
    .filter((word) => /^(?:-[\w-]*=)?\.\.?(?:[/\\]|$)/.test(word));
}
