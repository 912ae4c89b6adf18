import { McpPipeError } from '@mcppipe/errors';
import type { Argv, CommandModule } from 'yargs';
import { logLevels } from '../logger.js';
import { trace } from '../up/trace.js';
import type { LogLevel } from '../logger.js';

/** Parsed flags of `mcppipe up` (each also settable as `MCPPIPE_<FLAG>` in the environment). */
export interface UpArgs {
  upstream: string[];
  stdio: string[];
  upstreamsFile: string | undefined;
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
  yes: boolean;
}

const envOnly = { type: 'string', hidden: true } as const;

/**
 * MCPPIPE_* variables that are not options of `up` but must get past `.env('MCPPIPE')` with `.strict()`: the
 * upstream policy knobs the supervisor reads itself, and the marks a supervisor (mcppipe, the gateway) writes
 * into its children's environment, so that mcppipe can run as an upstream of another mcppipe.
 */
const ENV_ONLY_OPTIONS = {
  'upstream-max-attempts': envOnly,
  'upstream-failed-after-secs': envOnly,
  'supervisor-id': envOnly,
  'supervisor-pid': envOnly,
  'supervisor-start': envOnly,
  'supervisor-child': envOnly,
  'trace-startup': envOnly,
};

/** The default port of `mcppipe up` (documented in the CLI reference). */
export const DEFAULT_PORT = 8808;

/** `mcppipe up`: aggregate upstreams into one MCP server over Streamable HTTP (seed 000). */
export const upCommand: CommandModule<object, UpArgs> = {
  command: 'up',
  describe: 'Serve many MCP servers as one at http://HOST:PORT/mcp',
  builder: (y: Argv) =>
    y
      .option('upstream', {
        requiresArg: true,
        type: 'string',
        array: true,
        default: [],
        describe: 'An HTTP upstream: [name=]URL (repeatable)',
      })
      .option('stdio', {
        requiresArg: true,
        type: 'string',
        array: true,
        default: [],
        describe: 'A stdio upstream: [name=]"COMMAND ARGS" (repeatable)',
      })
      .option('upstreams-file', {
        requiresArg: true,
        type: 'string',
        describe: 'A TOML file with [upstreams.<name>] sections (conflicts with --upstream/--stdio)',
      })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to bind' })
      .option('port', { type: 'number', default: DEFAULT_PORT, describe: 'Port to bind (0 = any free port)' })
      .option('stateless', {
        type: 'boolean',
        default: false,
        describe: 'Serve every request statelessly (no sessions; no notifications to 2025-era clients)',
      })
      .option('hub', {
        type: 'boolean',
        default: false,
        describe: 'Also serve the four hub meta-tools at /hub',
      })
      .option('metrics-addr', {
        requiresArg: true,
        type: 'string',
        describe: 'Serve Prometheus metrics at http://HOST:PORT/metrics',
      })
      .option('log-level', { choices: logLevels, default: 'info' as LogLevel, describe: 'Minimum log level' })
      .option('log-format', {
        choices: ['pretty', 'json'] as const,
        default: (process.stderr.isTTY ? 'pretty' : 'json') as 'pretty' | 'json',
        describe: 'Log format on stderr',
      })
      .option('max-sessions', {
        type: 'number',
        default: 1000,
        describe: 'Maximum live 2025-era sessions (least recently used evicted)',
      })
      .option('session-idle-secs', {
        type: 'number',
        default: 1800,
        describe: 'Close 2025-era sessions idle this many seconds',
      })
      .option('body-limit', {
        type: 'number',
        default: 4 * 1024 * 1024,
        describe: 'Request body limit in bytes (413 beyond)',
      })
      .option('allowed-origins', {
        type: 'string',
        array: true,
        default: [],
        describe: 'Extra browser origins allowed (loopback origins always are; * = any)',
      })
      .option('allowed-hosts', {
        type: 'string',
        array: true,
        default: [],
        describe: 'Extra Host header names allowed on a loopback bind',
      })
      .option('yes', {
        alias: 'y',
        type: 'boolean',
        default: false,
        describe: 'With auto-detection: take every detected server without asking',
      })
      .options(ENV_ONLY_OPTIONS)
      .check((a) => {
        if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535)
          throw new McpPipeError(
            'MCPP_CLI_USAGE',
            `--port must be an integer 0-65535, got ${String(a.port)}`,
          );
        for (const k of ['max-sessions', 'session-idle-secs', 'body-limit'] as const) {
          const v = a[k];
          if (!Number.isFinite(v) || v <= 0)
            throw new McpPipeError('MCPP_CLI_USAGE', `--${k} must be a positive number, got ${String(v)}`);
        }
        return true;
      }) as unknown as Argv<UpArgs>,
  handler: async (args) => {
    trace('up handler');
    const { runUp } = await import('../up/run.js');
    trace('run modules loaded');
    await runUp(args);
  },
};
