/** A pino-compatible logger (the subset mcppipe packages use). */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => undefined;

/** The default logger: discards everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
