/**
 * `@mcppipe/supervisor`: One long-lived MCP client per upstream (stdio, Streamable HTTP, legacy SSE), kept alive. Every export here is public API.
 *
 * @module
 */
export {};
