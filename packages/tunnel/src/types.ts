/** A pino-shaped logger; every method writes to stderr or nowhere (never stdout). */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
