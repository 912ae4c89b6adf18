/**
 * `@mcppipe/tunnel`: both halves of the mcppipe tunnel (DESIGN.md T2, T3, T6): HTTP/2 over ONE outbound
 * WebSocket. The CLI side is {@link connectTunnel} (the h2 server, with reconnect and heartbeat); the relay side
 * is {@link TunnelRegistry} (authenticates at the upgrade, hands out public URLs, forwards each public request as
 * one h2 stream). Every export here is public API.
 *
 * @module
 */
export { connectTunnel } from './client.js';
export type {
  ConnectTunnelOptions,
  TunnelClient,
  TunnelCloseOptions,
  TunnelHandler,
  TunnelStatus,
} from './client.js';
export type { TunnelBackoff } from './backoff.js';
export { TunnelRegistry } from './registry.js';
export { DEFAULT_LEASE_TTL_MS, MIN_NODE_SECRET_LENGTH, TunnelCluster } from './cluster.js';
export type { OwnerLeases, TunnelClaim, TunnelClusterOptions, TunnelOwner } from './cluster.js';
export { NODE_SECRET_HEADER } from './nodeLink.js';
export type { ForwardedDelivery } from './nodeLink.js';
export type { NodeCallAnswer, NodeCallHandler } from './nodeCall.js';
export type { TunnelEvent, TunnelIdentity, TunnelRegistryOptions } from './registry.js';
export { Tunnel } from './tunnel.js';
export type { TunnelInfo, TunnelRequest, TunnelResponse } from './tunnel.js';
export type { ForwardExchange, ForwardTee } from './forward.js';
export { endToEndHeaders } from './headers.js';
export type { HeaderOverrides } from './headers.js';
export { writeTunnelOffline } from './offline.js';
export { refuseUpgrade } from './handshake.js';
export { forwardToLoopback } from './loopback.js';
export type { ForwardToLoopbackOptions, LoopbackHandler } from './loopback.js';
export { serveInProcess } from './inProcess.js';
export type { ServeInProcessOptions } from './inProcess.js';
export type { TunnelErrorCode, TunnelRefusalCode } from './errors.js';
export type { Logger } from './types.js';
export {
  CLOSE_DEAD,
  CLOSE_KEY_REVOKED,
  CLOSE_RELAY_CLOSED,
  CLOSE_REPLACED,
  METADATA_HEADER,
  PUBLIC_URL_HEADER,
  SUBDOMAIN_HEADER,
  TUNNEL_AUTH_HEADER,
} from './defaults.js';
