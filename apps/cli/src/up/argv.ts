import { flagKinds } from './flagReaders.js';

// Read before yargs loads (cold start); the flag kinds come from the one table yargs uses (flags.ts, read by flagReaders.ts).
const { value: VALUE_FLAGS, array: ARRAY_FLAGS, boolean: BOOLEAN_FLAGS } = flagKinds;

/** Short aliases of `up`'s flags (from the table: `-y` is `--yes`). */
const ALIASES: ReadonlyMap<string, string> = flagKinds.aliases;

/**
 * Reads a plain `mcppipe up …` command line without yargs: each flag of the table (flags.ts) with the values given to
 * it, in order. Declines (undefined) anything that is not plain, so that yargs parses it and its messages and exit
 * codes stay the ones users see: another command, `--help`/`--version`, an unknown, mistyped (`--upstreamsFile`),
 * negated (`--no-hub`) or repeated single-value flag, a missing value, a value that starts with `-` or a quote (yargs
 * strips quotes), a boolean given a value, a positional argument, `--`.
 *
 * @param argv - the arguments after `node cli.js`, e.g. `['up', '--stdio', 'a=node a.js', '-y']`
 * @returns flag (its long name, no dashes) → values; a boolean flag given maps to `[]`
 */
export function scanUpArgv(argv: readonly string[]): Map<string, string[]> | undefined {
  if (argv[0] !== 'up') return undefined;
  const out = new Map<string, string[]>();
  const plain = (value: string | undefined): value is string =>
    value !== undefined && value !== '' && !/^["'-]/.test(value);
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i] ?? '';
    const m = /^--?([a-z][a-z-]*)(?:=(.*))?$/s.exec(token);
    if (!m?.[1]) return undefined;
    const [, given, inline] = m;
    if (token.startsWith('--') === (given.length === 1)) return undefined; // `-port` or `--y`
    const name = ALIASES.get(given) ?? given;
    const values: string[] = [];
    if (BOOLEAN_FLAGS.has(name)) {
      if (inline !== undefined) return undefined; // `--hub=false`: yargs' reading
    } else if (inline !== undefined) {
      if (!plain(inline)) return undefined;
      values.push(inline);
    } else if (VALUE_FLAGS.has(name)) {
      const next = argv[++i];
      if (!plain(next)) return undefined;
      values.push(next);
    } else if (ARRAY_FLAGS.has(name)) {
      while (i + 1 < argv.length && !argv[i + 1]?.startsWith('-')) {
        const next = argv[++i];
        if (!plain(next)) return undefined;
        values.push(next);
      }
      if (values.length === 0) return undefined;
    } else return undefined; // not a flag of `up`
    const before = out.get(name);
    if (before === undefined) out.set(name, values);
    else if (ARRAY_FLAGS.has(name)) before.push(...values);
    else return undefined; // yargs turns a repeated flag into an array: its own message
  }
  return out;
}
