/**
 * `@mcppipe/hub`: Four meta-tools (list_servers, list_tools, get_tool, call_tool) over many upstreams. Every export here is public API.
 *
 * @module
 */
export {};
