/**
 * `@mcppipe/aggregator`: a namespaced MCP server over many upstreams: fan-out for lists, routing for calls
 * (DESIGN.md A1–A5), on both protocol eras, transport-agnostic. Every export here is public API.
 *
 * @module
 */
export { createAggregator } from './aggregator.js';
export { listenStreamSubscriptions } from './listenHold.js';
export {
  toJsonRpcError,
  upstreamUnavailableError,
  REQUEST_TIMEOUT_CODE,
  UPSTREAM_UNAVAILABLE_CODE,
} from './errors.js';
export type { UpstreamState, UpstreamUnavailableData } from './errors.js';
export { forwardForAgent } from './forward.js';
export type { AgentForwardOptions, ForwardTarget } from './forward.js';
export { createPolicyGate, PolicyGate } from './policyGate.js';
export type {
  ListView,
  PolicyGateOptions,
  PolicyQuery,
  PolicyRefusal,
  PolicyRefusalReason,
} from './policyGate.js';
export { pinnedRegistry } from './pinned.js';
export type { PinnedRegistry, ToolPinFilter } from './pinned.js';
export { RelayGate, relayPolicyConfig, relayRulesActive } from './relayGate.js';
export type { RelayGateOptions, RelayRules, RelayVerdict } from './relayGate.js';
export { createProxyServer } from './proxy.js';
export type { ProxyServerOptions } from './proxy.js';
export type {
  Aggregator,
  AggregatorDiagnostics,
  AggregatorEvents,
  AggregatorOptions,
  ChangedKind,
  CreateServerContext,
  DroppedItem,
  ListKind,
  ListStopReason,
  Logger,
  RenamedItem,
  UpstreamDiagnostics,
  UpstreamListReport,
} from './types.js';
