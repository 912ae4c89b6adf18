/**
 * `mcppipe`: the command line. The logic lives in the `@mcppipe/*` packages; this entry exports the CLI's
 * `main` for embedding and tests. Every export here is public API.
 *
 * @module
 */
export { main, exitCodes } from './main.js';
export { DEFAULT_PORT } from './commands/up.js';
export type { UpArgs } from './commands/up.js';
