import { createRequire } from 'node:module';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';

import type { LogLevel } from './up/flags.js';

const require = createRequire(import.meta.url);

export { logLevels } from './up/flags.js';
export type { LogLevel } from './up/flags.js';

/** Paths whose values never reach a log line: tokens, keys, passwords, configured headers and env values. */
export const redactPaths = [
  'authorization',
  '*.authorization',
  'headers',
  '*.headers',
  'env',
  '*.env',
  '*.token',
  '*.password',
  'apiKey',
  '*.apiKey',
  '*.secret',
];

/**
 * Creates the CLI's logger: pino to stderr (stdout may be an MCP stdio channel), pretty on a TTY or
 * with `format: 'pretty'`, JSON lines otherwise. Secrets are redacted.
 *
 * @param level - the minimum level
 * @param format - `pretty` or `json`
 */
export function createLogger(level: LogLevel, format: 'pretty' | 'json'): pino.Logger {
  const options: pino.LoggerOptions = { level, redact: { paths: redactPaths, censor: '[redacted]' } };
  // Asynchronous writes to fd 2: a stalled or closed stderr pipe (`mcppipe up 2>&1 | head`) can neither block
  // the event loop (shutdown must still run) nor crash the process.
  const destination = pino.destination({ fd: 2, sync: false });
  destination.on('error', () => {});
  if (format === 'pretty') {
    // loaded only here: JSON logs (the default off a TTY) do not pay for its ~40 modules at startup
    const pretty = require('pino-pretty') as typeof PinoPretty;
    const stream = pretty({
      destination,
      colorize: process.stderr.isTTY,
      ignore: 'pid,hostname',
      singleLine: true,
    });
    stream.on('error', () => {});
    return pino(options, stream);
  }
  return pino(options, destination);
}
