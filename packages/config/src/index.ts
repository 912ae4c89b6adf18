/**
 * `@mcppipe/config`: Configuration: CLI source rules, the TOML upstreams file, mcp.json, client auto-detection, hot reload. Every export here is public API.
 *
 * @module
 */
export {};
