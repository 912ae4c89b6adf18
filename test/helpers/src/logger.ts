/**
 * The one recording logger for tests: pino-shaped (`logger.warn(obj, msg)`), keeps every call.
 *
 * @module
 */

/** A pino-compatible logger (the shape every package's `Logger` has). */
export interface TestLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** One captured log call. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/**
 * A logger that keeps every call: `entries` as given, `lines` as text (`<msg> <JSON of obj>`, to assert that no
 * secret is ever logged).
 */
export function captureLogger(): TestLogger & { entries: LogEntry[]; lines: string[] } {
  const entries: LogEntry[] = [];
  const lines: string[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg?: string) => {
    entries.push({ level, obj: obj as Record<string, unknown>, msg });
    lines.push(`${msg ?? ''} ${JSON.stringify(obj)}`);
  };
  return { entries, lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** {@link captureLogger} under the name the OAuth tests use. */
export const recordingLogger = captureLogger;
