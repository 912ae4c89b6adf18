import type { Transport } from '@modelcontextprotocol/client';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ConnectContext, Connection } from './connection.js';
import { connectWithin, createClient, handshakeFacts, listenModern } from './connection.js';
import { SSE_FALLBACK_STATUSES } from './defaults.js';
import { McpPipeError } from '@mcppipe/errors';
import { describeError, describeNetworkFailure, httpStatus } from './errors.js';
import { expandUpstream } from '@mcppipe/config';
import { redactError } from './redact.js';
import type { ProtocolPreference } from './types.js';

async function connectVia(
  ctx: ConnectContext,
  via: 'streamable-http' | 'sse',
  setup: { transport: Transport; protocol: ProtocolPreference; deadline: number; url: URL },
): Promise<Connection> {
  const client = createClient(ctx, setup.protocol);
  const raw = await connectWithin(ctx, { client, transport: setup.transport, deadline: setup.deadline });
  const facts = handshakeFacts(client, raw);
  const subscription = facts.era === 'modern' ? listenModern(ctx, client, facts.capabilities) : undefined;
  let closing: Promise<void> | undefined;
  const connection: Connection = {
    client,
    via,
    pid: undefined,
    ...facts,
    stderrLines: () => [],
    describe: (err) => describeNetworkFailure(err, setup.url) ?? describeError(err),
    close() {
      closing ??= (async () => {
        connection.onDeath = undefined;
        await (await subscription)?.close().catch(() => {});
        await client.close().catch(() => {});
      })();
      return closing;
    },
    onDeath: undefined,
  };
  client.onclose = () => {
    if (closing) return;
    const onDeath = connection.onDeath;
    connection.onDeath = undefined;
    onDeath?.('the connection closed');
  };
  return connection;
}

/**
 * Connects an HTTP upstream: Streamable HTTP (era negotiated automatically unless pinned), falling back to the legacy
 * HTTP+SSE transport only when the first POST is answered 400, 404 or 405 — never on a 5xx or a refused connection.
 * Redirects are followed within the same origin only, so configured credentials never leave it.
 */
export async function openHttpConnection(ctx: ConnectContext, deadline: number): Promise<Connection> {
  if (ctx.spec.transport !== 'http') throw new TypeError('not an HTTP upstream');
  const spec = expandUpstream(ctx.spec, ctx.vars);
  const url = new URL(spec.url);
  const requestInit: RequestInit = spec.headers ? { headers: spec.headers } : {};
  const common = {
    requestInit,
    redirectPolicy: 'same-origin' as const,
    ...(ctx.fetch && { fetch: ctx.fetch }),
  };
  const protocol = spec.protocol ?? 'auto';
  try {
    try {
      const transport = new StreamableHTTPClientTransport(url, common);
      return await connectVia(ctx, 'streamable-http', { transport, protocol, deadline, url });
    } catch (err) {
      const status = httpStatus(err);
      if (protocol === 'modern' || status === undefined || !SSE_FALLBACK_STATUSES.has(status)) throw err;
      ctx.logger.info(
        { upstream: ctx.upstream, status, err: redactError(describeError(err), ctx.spec, ctx.vars) },
        'Streamable HTTP refused the first POST; trying the legacy SSE transport',
      );
      const transport = new SSEClientTransport(url, common);
      return await connectVia(ctx, 'sse', { transport, protocol: 'legacy', deadline, url });
    }
  } catch (err) {
    throw networkFailure(ctx.upstream, url, err) ?? err;
  }
}

/** `fetch failed` in words (connection refused, host not resolved, TLS, …), or undefined for other errors. */
function networkFailure(upstream: string, url: URL, err: unknown): McpPipeError | undefined {
  const reason = describeNetworkFailure(err, url);
  if (reason === undefined) return undefined;
  return new McpPipeError('MCPP_SUP_CONNECT_FAILED', reason, {
    cause: err,
    data: { upstream, url: `${url.origin}${url.pathname}` },
  });
}
