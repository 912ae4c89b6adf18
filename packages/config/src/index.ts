/**
 * `@mcppipe/config`: CLI source rules, the TOML upstreams file, the gateway's `mcp.json`, client
 * auto-detection, `${VAR}` expansion, and file watching with diffs. Every export here is public API.
 *
 * JSON Schemas for both file formats ship as `@mcppipe/config/schema/upstreams-file.schema.json` and
 * `@mcppipe/config/schema/mcp-json.schema.json`.
 *
 * @module
 */
export type {
  HttpUpstreamConfig,
  Layout,
  LayoutMode,
  Logger,
  ParseOptions,
  ProtocolPreference,
  StdioUpstreamConfig,
  UpstreamConfig,
  UpstreamConfigBase,
  ValidationResult,
} from './types.js';
export { DEFAULT_DEBOUNCE_MS, DEFAULT_POLL_INTERVAL_MS } from './defaults.js';
export { formatCliSource, resolveCliSources, splitCliSource } from './cliSources.js';
export type { CliSource, CliSourceFlags, CliSources } from './cliSources.js';
export { loadUpstreamsFile, parseUpstreamsToml, validateUpstreamsToml } from './upstreamsFile.js';
export { loadMcpJson, parseMcpJson, validateMcpJson } from './mcpJson.js';
export type { McpServerType } from './mcpJson.js';
export { expandUpstream, expandVariables, fieldExpander } from './expand.js';
export type { VariableSource } from './expand.js';
export { clientConfigFiles, clientNames } from './clientPaths.js';
export { clientSnippet, snippetClients, snippetRunner } from './snippet.js';
export type { ClientSnippetOptions, SnippetClient, SnippetRunner, SnippetRunnerOptions } from './snippet.js';
export type { ClientConfigFile, ClientId, ClientLocationOptions, ServerListKey } from './clientPaths.js';
export { detectClientServers, layoutFromDetected } from './detect.js';
export type {
  DetectOptions,
  DetectResult,
  DetectedRename,
  DetectedServer,
  DetectedSource,
} from './detect.js';
export { deepEqual, diffLayouts } from './diff.js';
export { closestName, withFlagSuggestions } from './issues.js';
export { hasUrlCredentials, redactUrl, redactUrlsIn } from './redactUrl.js';
export type { LayoutDiff, UpstreamChange } from './diff.js';
export { watchConfig } from './watch.js';
export type { ConfigChange, ConfigWatcher, WatchConfigOptions, WatchedConfig } from './watch.js';
