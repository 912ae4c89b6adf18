import { scanUpArgv } from './argv.js';
import { envVariable } from './flagReaders.js';

/** The source flags of `mcppipe up`, as yargs names them. */
export interface SourceArgs {
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
}

/**
 * The source flags of a plain `mcppipe up …` command line (read by {@link scanUpArgv}, before yargs loads), or
 * undefined for anything else (another command, help, an unknown or unusual flag, sources from the environment):
 * then nothing starts early.
 */
export function earlySources(argv: readonly string[], env: NodeJS.ProcessEnv): SourceArgs | undefined {
  if (['upstream', 'stdio', 'upstreams-file'].some((f) => env[envVariable(f)] !== undefined))
    return undefined;
  const flags = scanUpArgv(argv);
  if (!flags) return undefined;
  return {
    upstream: flags.get('upstream') ?? [],
    stdio: flags.get('stdio') ?? [],
    upstreamsFile: flags.get('upstreams-file')?.[0],
  };
}
