/**
 * The flags of `mcppipe up`, in one table: yargs reads it (commands/up.ts), the cold start reads it without yargs
 * (argv.ts for the early spawn, early.ts, and for a plain command line, fastArgs.ts), and it names the `MCPPIPE_*`
 * variables that are read (one per flag, nothing else). Those readings without yargs are flagReaders.ts.
 *
 * This module imports nothing at run time: early.ts loads it before anything else.
 */
import type { Options } from 'yargs';
import { tunnelOptions } from './tunnelFlags.js';

/** Log levels accepted by `--log-level`. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export { tunnelAuthModes } from './tunnelFlags.js';
export type { TunnelAuthMode } from './tunnelFlags.js';

/** The default port of `mcppipe up` (documented in the CLI reference). */
export const DEFAULT_PORT = 8808;

/** Every flag of `mcppipe up` (yargs option definitions; the numeric ones are parsed by commands/up.ts). */
export const upOptions = {
  upstream: {
    requiresArg: true,
    type: 'string',
    array: true,
    default: [],
    describe: 'An HTTP upstream: [name=]URL (repeatable)',
  },
  stdio: {
    requiresArg: true,
    type: 'string',
    array: true,
    default: [],
    describe: 'A stdio upstream: [name=]"COMMAND ARGS" (repeatable)',
  },
  'upstreams-file': {
    requiresArg: true,
    type: 'string',
    describe: 'A TOML file with [upstreams.<name>] sections (conflicts with --upstream/--stdio)',
  },
  transport: {
    choices: ['http', 'stdio'],
    default: 'http',
    describe:
      'Serve over Streamable HTTP at http://HOST:PORT/mcp, or as one stdio MCP server on stdin/stdout',
  },
  host: { type: 'string', default: '127.0.0.1', describe: 'Address to bind' },
  port: {
    type: 'string',
    requiresArg: true,
    default: String(DEFAULT_PORT),
    describe: 'Port to bind (0 = any free port)',
  },
  stateless: {
    type: 'boolean',
    default: false,
    describe: 'Serve every request statelessly (no sessions; no notifications to 2025-era clients)',
  },
  hub: { type: 'boolean', default: false, describe: 'Also serve the four hub meta-tools at /hub' },
  'metrics-addr': {
    requiresArg: true,
    type: 'string',
    describe: 'Serve Prometheus metrics at http://HOST:PORT/metrics',
  },
  'log-level': { choices: logLevels, default: 'info', describe: 'Minimum log level' },
  'log-format': {
    choices: ['pretty', 'json'],
    default: process.stderr.isTTY ? 'pretty' : 'json',
    describe: 'Log format on stderr',
  },
  'max-sessions': {
    type: 'string',
    requiresArg: true,
    default: '1000',
    describe: 'Maximum live 2025-era sessions (least recently used evicted)',
  },
  'session-idle-secs': {
    type: 'string',
    requiresArg: true,
    default: '1800',
    describe: 'Close 2025-era sessions idle this many seconds',
  },
  'body-limit': {
    type: 'string',
    requiresArg: true,
    default: String(4 * 1024 * 1024),
    describe: 'Request body limit in bytes (413 beyond)',
  },
  'allowed-origins': {
    type: 'string',
    array: true,
    default: [],
    describe: 'Extra browser origins allowed (loopback origins always are; * = any)',
  },
  'allowed-hosts': {
    type: 'string',
    array: true,
    default: [],
    describe: 'Extra Host header names allowed on a loopback bind',
  },
  ...tunnelOptions,
  'deny-tool': {
    requiresArg: true,
    type: 'string',
    array: true,
    default: [],
    describe:
      'Hide and refuse tools whose exposed name matches GLOB (e.g. "filesystem__write_*"; repeatable)',
  },
  'allow-tool': {
    requiresArg: true,
    type: 'string',
    array: true,
    default: [],
    describe: 'Serve only tools matching GLOB (an allowlist; repeatable); --deny-tool still wins',
  },
  yes: {
    alias: 'y',
    type: 'boolean',
    default: false,
    describe: 'With auto-detection: take every detected server without asking',
  },
} satisfies Record<string, Options>;

/** A flag of `mcppipe up` (without its dashes). */
export type UpFlag = keyof typeof upOptions;
