/**
 * `@mcppipe/gateway`: the mcppipe gateway — OAuth 2.1, each server at its own path, `/mcp` and `/hub`,
 * hot reload, state on disk. Every export here is public API.
 *
 * @module
 */
export { buildApp } from './app.js';
export type { GatewayInternals } from './app.js';
export { startGateway } from './server.js';
export type { RunningGateway } from './server.js';
export { resolveGatewayOptions } from './options.js';
export { parseTrustedProxies } from './flagParsers.js';
export type { GatewayOptions, RawGatewayOptions } from './options.js';
export type {
  ClientLimitOptions,
  GatewayDeps,
  Logger,
  McpEndpoint,
  PipelineObserver,
  PipelineStage,
  RateLimitOptions,
  TimeoutOptions,
  TokenVerifier,
} from './types.js';
export type { TokenCheck } from '@mcppipe/oauth';
