import { envVariable, flagKinds } from './flags.js';

// Read before yargs loads (cold start, see early.ts); the flag kinds come from the one table yargs uses (flags.ts).
const { value: VALUE_FLAGS, array: ARRAY_FLAGS, boolean: BOOLEAN_FLAGS } = flagKinds;

/** The source flags of `mcppipe up`, as yargs names them. */
export interface SourceArgs {
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
}

/**
 * The source flags of a plain `mcppipe up …` command line, or undefined for anything else (another command, help,
 * an unknown or unusual flag, sources from the environment): then nothing starts early.
 */
export function earlySources(argv: readonly string[], env: NodeJS.ProcessEnv): SourceArgs | undefined {
  if (argv[0] !== 'up') return undefined;
  if (['upstream', 'stdio', 'upstreams-file'].some((f) => env[envVariable(f)] !== undefined))
    return undefined;
  const out: SourceArgs = { upstream: [], stdio: [], upstreamsFile: undefined };
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i] ?? '';
    const m = /^--?([a-z][a-z-]*)(?:=(.*))?$/s.exec(token);
    if (!m?.[1]) return undefined;
    const [, name, inline] = m;
    if (token.startsWith('--') === (name.length === 1)) return undefined; // `-port` or `--y`
    const values: string[] = [];
    if (inline !== undefined) values.push(inline);
    else if (VALUE_FLAGS.has(name)) {
      const next = argv[++i];
      if (next === undefined || next.startsWith('-')) return undefined;
      values.push(next);
    } else if (ARRAY_FLAGS.has(name)) {
      while (i + 1 < argv.length && !argv[i + 1]?.startsWith('-')) values.push(argv[++i] ?? '');
      if (values.length === 0) return undefined;
    } else if (!BOOLEAN_FLAGS.has(name)) return undefined;
    if (BOOLEAN_FLAGS.has(name) && inline !== undefined) return undefined;
    if (name === 'upstream') out.upstream.push(...values);
    else if (name === 'stdio') out.stdio.push(...values);
    else if (name === 'upstreams-file') {
      if (out.upstreamsFile !== undefined) return undefined;
      out.upstreamsFile = values[0];
    }
  }
  return out;
}
