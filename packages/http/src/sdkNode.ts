import type * as SdkNodeModule from '@modelcontextprotocol/node';

/**
 * `@modelcontextprotocol/node`, loaded on its first use (cold start, issue 21): importing it loads
 * `@hono/node-server`, which reads the global `Request`/`Headers` at import (so Node loads its fetch implementation)
 * and imports `node:http2`, about 50 ms of CPU that a server pays before it listens otherwise. The 2025-session
 * transport and the fallback of `createNodeHandler` are its only users, both on a request's async path.
 */
type SdkNode = typeof SdkNodeModule;
let loading: Promise<SdkNode> | undefined;

/** The SDK's Node adapter, imported once on first use. */
export function loadSdkNode(): Promise<SdkNode> {
  loading ??= import('@modelcontextprotocol/node');
  return loading;
}
