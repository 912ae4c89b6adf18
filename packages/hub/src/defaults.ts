/** Defaults of `@mcppipe/hub` (STYLE.md §4: units in names, defaults in one place). */

/** `call_tool` timeout in ms, reset on every progress notification (seed 001 "The /hub aggregate": five minutes). */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

/** Timeout in ms of one upstream `tools/list` page request made to fill the tool cache. */
export const DEFAULT_LIST_TIMEOUT_MS = 30_000;

/**
 * Extra ms the hub gives the supervisor's own request timeout beyond the hub's, so the hub's timer is the one
 * that fires (and the agent gets `MCPP_HUB_TIMEOUT`, not a transport timeout).
 */
export const SUPERVISOR_TIMEOUT_GRACE_MS = 5_000;

/** Upper bound on `tools/list` pages followed for one server; a server paginating beyond it is cut off with a warning. */
export const MAX_LIST_PAGES = 100;

/** One-line descriptions (`list_servers`, `list_tools`) are cut at this many characters. */
export const SUMMARY_MAX_CHARS = 200;

/** At most this many close matches are suggested for an unknown server or tool. */
export const MAX_SUGGESTIONS = 5;

/** An unknown-server error lists every visible server when there are at most this many. */
export const MAX_LISTED_NAMES = 20;

/** `serverInfo.name` of the hub's MCP server. */
export const DEFAULT_SERVER_NAME = 'mcppipe-hub';

/** The `instructions` the hub's MCP server sends agents. */
export const DEFAULT_INSTRUCTIONS =
  'This server is a hub in front of several MCP servers. Call list_servers to see them, list_tools for one ' +
  "server's tools, get_tool for a tool's input schema, then call_tool to run it.";
