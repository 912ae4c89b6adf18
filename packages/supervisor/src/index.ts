/**
 * `@mcppipe/supervisor`: one long-lived MCP client per upstream, kept alive. Every export here is public API.
 *
 * The Node-only stdio machinery (spawning, process groups, orphan reaping) lives in `@mcppipe/supervisor/stdio` and
 * is loaded lazily by {@link Supervisor} when a stdio upstream starts, so this entry imports no `child_process`.
 *
 * @module
 */
export { Supervisor } from './supervisor.js';
// `${VAR}` expansion and the upstream type are `@mcppipe/config`'s, re-exported under the supervisor's names.
export { expandUpstream as expandUpstreamSpec, expandVariables } from '@mcppipe/config';
export type { VariableSource } from '@mcppipe/config';
export { passthroughSchema } from './passthrough.js';
export { redactSpec } from './redact.js';
export { describeError, isSessionExpired, isTransportFailure } from './errors.js';
export type { SupervisorErrorCode, UnavailableData } from './errors.js';
export {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STDERR_TAIL_BYTES,
} from './defaults.js';
export type {
  ForwardedRequest,
  HttpUpstreamSpec,
  LayoutChange,
  Logger,
  ProtocolPreference,
  StdioUpstreamSpec,
  SupervisorEvents,
  SupervisorOptions,
  UpstreamNotificationEvent,
  UpstreamRegistry,
  UpstreamRequestHandler,
  UpstreamRequestOptions,
  UpstreamSnapshot,
  UpstreamSpec,
} from './types.js';
