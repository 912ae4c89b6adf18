/**
 * `@mcppipe/aggregator`: A namespaced MCP server over many upstreams: fan-out for lists, routing for calls. Every export here is public API.
 *
 * @module
 */
export {};
