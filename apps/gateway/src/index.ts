/**
 * `@mcppipe/gateway`: The mcppipe gateway: OAuth 2.1, each server at its own path, /mcp and /hub, hot reload, state on disk. Every export here is public API.
 *
 * @module
 */
export {};
