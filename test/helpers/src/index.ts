/**
 * `@mcppipe/test-utils`: Test helpers: fixture MCP servers, random ports, disposable processes. Every export here is public API.
 *
 * @module
 */
export {};
