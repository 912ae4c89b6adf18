import { homedir } from 'node:os';
import type { Layout } from '@mcppipe/config';
import {
  detectClientServers,
  layoutFromDetected,
  loadUpstreamsFile,
  resolveCliSources,
} from '@mcppipe/config';
import type { Logger } from 'pino';

/** The source flags of `mcppipe up`. */
export interface SourceFlags {
  upstream: readonly string[];
  stdio: readonly string[];
  upstreamsFile: string | undefined;
  /** Take every detected server without asking. */
  yes: boolean;
  /** `stdio`: stdin/stdout are the MCP channel, so detection never prompts (it behaves as headless). */
  transport?: 'http' | 'stdio';
}

/**
 * Resolves the layout from flags (A7), a TOML file (A8), or auto-detection (A11): on a TTY the user
 * chooses to expose one server or aggregate several (multi-select); headless (and `--transport stdio`) takes all
 * with a warning.
 *
 * @throws McpPipeError from `@mcppipe/config` with the exact user-facing message
 */
export async function resolveLayout(flags: SourceFlags, logger: Logger): Promise<Layout> {
  const sources = resolveCliSources({
    upstream: flags.upstream,
    stdio: flags.stdio,
    upstreamsFile: flags.upstreamsFile,
  });
  switch (sources.source) {
    case 'flags':
      return sources.layout;
    case 'file':
      return loadUpstreamsFile(sources.path);
    case 'none':
      return detect(flags, logger);
    default: {
      const never: never = sources;
      return never;
    }
  }
}

/** Whether a detected upstream runs `mcppipe up` (`npx -y mcppipe up …`, `mcppipe up …`, `node …/cli.js up`). */
export function isMcppipeUp(upstream: Layout['upstreams'][number]): boolean {
  if (upstream.transport !== 'stdio') return false;
  const words = upstream.args ? [upstream.command, ...upstream.args] : upstream.command.split(/\s+/);
  const at = words.findIndex(
    (w) => /(^|[/\\])mcppipe(@[^/\\]*)?$/.test(w) || /(^|[/\\])mcppipe[/\\]/.test(w),
  );
  return at >= 0 && words.slice(at + 1).includes('up');
}

async function detect(flags: SourceFlags, logger: Logger): Promise<Layout> {
  const found = await detectClientServers({
    homeDir: homedir(),
    cwd: process.cwd(),
    platform: process.platform,
    env: process.env,
  });
  for (const w of found.warnings) logger.warn({ warning: w }, 'skipped while detecting MCP clients');
  for (const r of found.renames)
    logger.info({ key: r.key, name: r.name }, 'detected server renamed to a valid upstream name');
  // An entry that runs `mcppipe up` (the one `mcppipe config snippet` prints) would start mcppipe again, recursively.
  const servers = found.servers.filter((s) => {
    const self = isMcppipeUp(s.upstream);
    if (self) logger.info({ upstream: s.name }, 'detected server skipped: it runs mcppipe up itself');
    return !self;
  });
  const headless = flags.transport === 'stdio' || !process.stdin.isTTY || !process.stderr.isTTY;
  if (servers.length <= 1 || flags.yes || headless) {
    const layout = layoutFromDetected(servers);
    if (servers.length > 1) {
      logger.warn(
        { upstreams: servers.map((s) => `${s.name} (${s.sources.map((x) => x.clientName).join(', ')})`) },
        `no source flags: aggregating all ${servers.length} MCP servers detected in local clients; pin an explicit set with --upstream name=url or --stdio name="command"`,
      );
    } else {
      logger.info(
        { upstream: servers[0]?.name, from: servers[0]?.sources[0]?.file },
        'no source flags: exposing the one detected MCP server',
      );
    }
    return layout;
  }
  const [{ default: select }, { default: checkbox }] = await Promise.all([
    import('@inquirer/select'),
    import('@inquirer/checkbox'),
  ]);
  const label = (s: (typeof servers)[number]) =>
    `${s.name}  (${s.sources.map((x) => x.clientName).join(', ')})`;
  const how = await select({
    message: `Found ${servers.length} MCP servers in your clients. Expose one, or aggregate several?`,
    choices: [
      { name: 'Aggregate several', value: 'aggregate' },
      { name: 'Expose one', value: 'one' },
    ],
  });
  if (how === 'one') {
    const name = await select({
      message: 'Which server?',
      choices: servers.map((s) => ({ name: label(s), value: s.name })),
    });
    return layoutFromDetected(servers, [name]);
  }
  const names = await checkbox({
    message: 'Which servers? (space to toggle, enter to confirm)',
    choices: servers.map((s) => ({ name: label(s), value: s.name, checked: true })),
    required: true,
  });
  return layoutFromDetected(servers, names);
}
