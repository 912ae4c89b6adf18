/**
 * `@mcppipe/http`: a dual-era Streamable HTTP host for any MCP server factory. Every export here is public API.
 *
 * @module
 */
export { createMcpHttpHost } from './host.js';
export { SERIALIZED_RESULT } from './directPost.js';
export { SHARED_MODERN_SERVER } from './modernDirect.js';
export type { ModernDirectOptions } from './modernDirect.js';
export type {
  HostRequest,
  Logger,
  McpHttpHost,
  McpHttpHostOptions,
  McpServerFactory,
  ReleaseSubscriptions,
} from './types.js';
export { SessionTable } from './sessionTable.js';
export type { SessionEntry } from './sessionTable.js';
export { isInitializeBody, readJsonBody, sendJsonRpcError, BodyError } from './body.js';
export {
  MAX_JSON_DEPTH,
  exceedsDepth,
  depthMessage,
  HTTP_TIMEOUTS,
  serverTimeoutOptions,
  OVERSIZE_DRAIN,
  drainRefusedBody,
} from './limits.js';
export type { HttpTimeouts } from './limits.js';
export { createHostOriginPolicy, isLoopbackHost } from './loopback.js';
export { parseCidr } from './cidr.js';
export type { Cidr } from './cidr.js';
export type { HostOriginPolicy, HostOriginPolicyOptions } from './loopback.js';
