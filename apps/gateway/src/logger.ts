/**
 * The gateway's logger: pino JSON lines to stderr and, when `LOG_FILE` is set, to that file as well.
 * Secrets (tokens, cookies, passwords, configured headers and env values) are redacted.
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'cookie',
  '*.cookie',
  'headers',
  '*.headers',
  'env',
  '*.env',
  'token',
  '*.token',
  'password',
  '*.password',
  '*.secret',
  '*.apiKey',
];

/**
 * Creates the logger.
 *
 * @param level - the minimum level (`info` by default)
 * @param logFile - an extra destination file, appended to (its directory is created)
 */
export function createLogger(level: string, logFile?: string): pino.Logger {
  const options: pino.LoggerOptions = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (logFile === undefined) return pino(options, pino.destination({ fd: 2, sync: true }));
  mkdirSync(dirname(logFile), { recursive: true });
  return pino(
    options,
    pino.multistream([
      { level: level as pino.Level, stream: pino.destination({ fd: 2, sync: true }) },
      { level: level as pino.Level, stream: pino.destination({ dest: logFile, append: true, sync: true }) },
    ]),
  );
}
