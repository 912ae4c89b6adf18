import { McpPipeError } from '@mcppipe/errors';
import type { ConnectOptions, McpSubscription, Transport } from '@modelcontextprotocol/client';
import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { VariableSource } from '@mcppipe/config';
import { describeError } from './errors.js';
import { redactError } from './redact.js';
import type * as StdioModule from './stdio.js';
import type { Logger, ProtocolPreference, UpstreamRequestHandler, UpstreamSpec } from './types.js';

/** Everything one connection attempt needs from its supervisor. */
export interface ConnectContext {
  upstream: string;
  spec: UpstreamSpec;
  clientInfo: { name: string; version: string; [key: string]: unknown };
  clientCapabilities: Record<string, unknown>;
  requestHandler: () => UpstreamRequestHandler | undefined;
  onNotification: (method: string, params: Record<string, unknown> | undefined) => void;
  onSkippedLine: (line: string) => void;
  logger: Logger;
  vars: VariableSource;
  startTimeoutMs: number;
  killGraceMs: number;
  stderrTailBytes: number;
  supervisorId: string;
  spawnToken: string;
  spawn: StdioModule.CreateStdioTransportOptions['spawn'];
  fetch: ((input: string | URL, init?: RequestInit) => Promise<Response>) | undefined;
  /** Aborted when the attempt is abandoned (stop, restart). */
  signal: AbortSignal;
}

/** A live connection to one upstream. */
export interface Connection {
  readonly client: Client;
  readonly via: 'stdio' | 'streamable-http' | 'sse';
  readonly pid: number | undefined;
  readonly era: 'legacy' | 'modern' | undefined;
  readonly protocolVersion: string | undefined;
  readonly capabilities: Record<string, unknown> | undefined;
  readonly serverInfo: { name: string; version: string; [key: string]: unknown } | undefined;
  readonly instructions: string | undefined;
  /** The last stderr lines (stdio), oldest first. */
  stderrLines(count: number): string[];
  /** A failure of this connection in words (HTTP: `connection refused at <url>`, … instead of `fetch failed`). */
  describe(err: unknown): string;
  /** Closes the client and ends the process tree. Idempotent. */
  close(): Promise<void>;
  /**
   * Set by the owner: called once when the connection ends without `close()` — for a stdio process at its exit, at
   * once, so no call is sent into the gap before its streams close.
   */
  onDeath: ((reason: string) => void) | undefined;
  /** Set by the owner: the fuller reason of a death already reported, once the process's stderr is drained. */
  onDeathDetail?: ((reason: string) => void) | undefined;
}

let stdioModule: Promise<typeof StdioModule> | undefined;

/**
 * Loads the Node-only stdio module on first use, keeping `child_process` out of the root entry. The specifier is a
 * literal so that a bundler (the `mcppipe` CLI inlines this package) can follow it; the build splits code, so it
 * stays a separate, lazily loaded file here too.
 */
export function loadStdio(): Promise<typeof StdioModule> {
  stdioModule ??= import('./stdio.js');
  return stdioModule;
}

const SERVER_TO_CLIENT: ReadonlyArray<[capability: string, method: string]> = [
  ['sampling', 'sampling/createMessage'],
  ['elicitation', 'elicitation/create'],
  ['roots', 'roots/list'],
];

/** A v2 client wired to the supervisor: notifications out, server→client requests to the installed handler. */
export function createClient(ctx: ConnectContext, protocol: ProtocolPreference): Client {
  const client = new Client(ctx.clientInfo, {
    capabilities: ctx.clientCapabilities,
    ...(protocol === 'auto' && { versionNegotiation: { mode: 'auto' as const } }),
    ...(protocol === 'modern' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
  });
  client.fallbackNotificationHandler = async (n) => {
    ctx.onNotification(n.method, n.params as Record<string, unknown> | undefined);
  };
  const forward = async (
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    const handler = ctx.requestHandler();
    if (!handler)
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `mcppipe cannot answer ${method} now`);
    return handler(
      ctx.upstream,
      { method, params: params as Record<string, unknown> | undefined },
      { signal },
    );
  };
  client.fallbackRequestHandler = (req, c) => forward(req.method, req.params, c.mcpReq.signal);
  // Registered handlers are what the 2026 era's input_required auto-fulfilment calls; only for declared capabilities.
  for (const [capability, method] of SERVER_TO_CLIENT) {
    if (ctx.clientCapabilities[capability] === undefined) continue;
    const register = client.setRequestHandler.bind(client) as (
      m: string,
      h: (r: { params?: unknown }, c: { mcpReq: { signal: AbortSignal } }) => Promise<unknown>,
    ) => void;
    register(method, (r, c) => forward(method, r.params, c.mcpReq.signal));
  }
  client.onerror = (err) =>
    ctx.logger.debug(
      { upstream: ctx.upstream, err: redactError(describeError(err), ctx.spec, ctx.vars) },
      'upstream client error',
    );
  return client;
}

/**
 * Connects `client` over `transport` within the start timeout; on timeout or abandonment closes the transport (which
 * ends a child process) and rejects.
 */
export async function connectWithin(
  ctx: ConnectContext,
  link: { client: Client; transport: Transport; deadline: number },
  options: ConnectOptions = {},
): Promise<Record<string, unknown> | undefined> {
  const { client, transport } = link;
  let raw: Record<string, unknown> | undefined;
  // Capture the handshake result as sent (unknown capability fields survive); Protocol chains this callback.
  transport.onmessage = (message) => {
    if (raw === undefined && 'result' in message) {
      const result = message.result as Record<string, unknown>;
      if (typeof result['capabilities'] === 'object') raw = result;
    }
  };
  const remaining = Math.max(1, link.deadline - Date.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new McpPipeError('MCPP_SUP_START_TIMEOUT', `no handshake within ${ctx.startTimeoutMs} ms`, {
            data: { upstream: ctx.upstream, startTimeoutMs: ctx.startTimeoutMs },
          }),
        ),
      remaining,
    );
    onAbort = () => reject(new McpPipeError('MCPP_SUP_STOPPED', 'connection attempt abandoned'));
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([client.connect(transport, { timeout: remaining, ...options }), stop]);
    deferResponses(transport);
    return raw;
  } catch (err) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** Handshake facts read from a connected client (raw result first, then the client's parsed view). */
/**
 * The SDK client dispatches a notification in a microtask but handles a response synchronously, so a final
 * `notifications/progress` that arrives in the same read as its result finds its handler gone and is
 * dropped (SDK-V2-PROBE §6.1). Deferring each response by one microtask keeps wire order: every
 * notification that arrived before a response is dispatched before it.
 */
function deferResponses(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ('id' in message && !('method' in message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

export function handshakeFacts(
  client: Client,
  raw: Record<string, unknown> | undefined,
): Pick<Connection, 'era' | 'protocolVersion' | 'capabilities' | 'serverInfo' | 'instructions'> {
  const era = client.getProtocolEra();
  const source = era === 'modern' ? (client.getDiscoverResult() as Record<string, unknown> | undefined) : raw;
  const capabilities =
    (source?.['capabilities'] as Record<string, unknown> | undefined) ??
    (client.getServerCapabilities() as Record<string, unknown> | undefined);
  const serverInfo = ((era === 'legacy' ? source?.['serverInfo'] : undefined) ??
    client.getServerVersion()) as Connection['serverInfo'] | undefined;
  return {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    capabilities,
    serverInfo,
    instructions: client.getInstructions(),
  };
}

/** On the 2026 era notifications flow on `subscriptions/listen`: open one for the advertised list changes. */
export function listenModern(
  ctx: ConnectContext,
  client: Client,
  capabilities: Record<string, unknown> | undefined,
) {
  const has = (key: string) =>
    (capabilities?.[key] as { listChanged?: boolean } | undefined)?.listChanged === true;
  const filter = {
    ...(has('tools') && { toolsListChanged: true }),
    ...(has('prompts') && { promptsListChanged: true }),
    ...(has('resources') && { resourcesListChanged: true }),
  };
  if (Object.keys(filter).length === 0) return undefined;
  const subscription: Promise<McpSubscription | undefined> = client.listen(filter).catch((err: unknown) => {
    ctx.logger.debug(
      { upstream: ctx.upstream, err: redactError(describeError(err), ctx.spec, ctx.vars) },
      'subscriptions/listen failed',
    );
    return undefined;
  });
  return subscription;
}
