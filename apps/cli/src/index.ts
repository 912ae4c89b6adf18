/**
 * `mcppipe`: The mcppipe command line: `mcppipe up` aggregates many MCP servers into one. Every export here is public API.
 *
 * @module
 */
export {};
