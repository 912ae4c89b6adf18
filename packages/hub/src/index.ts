/**
 * `@mcppipe/hub`: four meta-tools (`list_servers`, `list_tools`, `get_tool`, `call_tool`) over many upstreams,
 * so an agent's context holds four tool schemas instead of every server's (seed 001 "The /hub aggregate",
 * DESIGN.md G11). Every export here is public API.
 *
 * @module
 */
export { createHub } from './hub.js';
export { metaTools } from './metaTools.js';
export type { MetaToolName } from './metaTools.js';
export type {
  GetToolResult,
  Hub,
  HubErrorInfo,
  HubLogger,
  HubOptions,
  HubServerContext,
  ListServersResult,
  ListToolsResult,
  ServerSummary,
  ToolSummary,
} from './types.js';
