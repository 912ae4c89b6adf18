/**
 * `@mcppipe/http`: A dual-era Streamable HTTP host for any MCP server factory: 2025-era sessions in a bounded table, 2026-07-28 per request, or fully stateless. Every export here is public API.
 *
 * @module
 */
export {};
