/**
 * `@mcppipe/errors`: the shared error class and code list. Every export here is public API.
 *
 * @module
 */
export { errorCodes } from './codes.js';
export type { McpPipeErrorCode } from './codes.js';
export { McpPipeError, isMcpPipeError, isMcpPipeErrorCode } from './mcpPipeError.js';
export type { McpPipeErrorOptions } from './mcpPipeError.js';
