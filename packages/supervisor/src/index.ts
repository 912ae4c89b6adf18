/**
 * `@mcppipe/supervisor`: one long-lived MCP client per upstream, kept alive. Every export here is public API.
 *
 * @module
 */
export type {
  ForwardedRequest,
  HttpUpstreamSpec,
  ProtocolPreference,
  StdioUpstreamSpec,
  SupervisorEvents,
  UpstreamNotificationEvent,
  UpstreamRegistry,
  UpstreamRequestHandler,
  UpstreamRequestOptions,
  UpstreamSnapshot,
  UpstreamSpec,
} from './types.js';
