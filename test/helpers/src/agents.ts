/**
 * Test-only agents: real SDK v2 clients of both eras, connected through real transports, recording every
 * message they receive (so a test can check what the aggregator sent, independently of client-side races).
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/server';

/** Anything that makes an MCP server per connection (an aggregator, a hub): typed structurally. */
export interface ServerFactory {
  createServer(options?: { era?: 'legacy' | 'modern' }): Server;
}

/** A connected agent. */
export interface TestAgent {
  client: Client;
  /** Every message the agent received, in order. */
  received: JSONRPCMessage[];
  /** Every message the agent sent, in order. */
  sent: JSONRPCMessage[];
  /** Received notifications of one method. */
  notifications(method: string): Record<string, unknown>[];
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of the test agents. */
export interface TestAgentOptions {
  /** Answers to server→client requests; declaring one declares the capability. */
  sampling?: (params: Record<string, unknown>) => Record<string, unknown>;
  elicitation?: (params: Record<string, unknown>) => Record<string, unknown>;
  roots?: () => Record<string, unknown>;
  /** `legacy` (2025 handshake, default) or `modern` (2026-07-28). */
  era?: 'legacy' | 'modern';
}

function newClient(options: TestAgentOptions): Client {
  const capabilities: Record<string, unknown> = {};
  if (options.sampling) capabilities['sampling'] = {};
  if (options.elicitation) capabilities['elicitation'] = { form: {} };
  if (options.roots) capabilities['roots'] = { listChanged: true };
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    {
      capabilities,
      versionNegotiation: { mode: options.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  const { sampling, elicitation, roots } = options;
  if (sampling)
    client.setRequestHandler('sampling/createMessage', async (req) => sampling(req.params as never) as never);
  if (elicitation)
    client.setRequestHandler('elicitation/create', async (req) => elicitation(req.params as never) as never);
  if (roots) client.setRequestHandler('roots/list', async () => roots() as never);
  return client;
}

function record(transport: Transport, received: JSONRPCMessage[], sent: JSONRPCMessage[]): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  // Whatever handler the client installs (it re-installs one after era negotiation) records first; a
  // message seen by several chained handlers is recorded once.
  const seen = new WeakSet<object>();
  let current: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => current,
    set: (handler: Transport['onmessage']) => {
      current =
        handler === undefined
          ? undefined
          : (message, extra) => {
              if (!seen.has(message)) {
                seen.add(message);
                received.push(message);
              }
              handler(message, extra);
            };
    },
  });
}

async function connect(client: Client, transport: Transport): Promise<TestAgent> {
  const received: JSONRPCMessage[] = [];
  const sent: JSONRPCMessage[] = [];
  record(transport, received, sent);
  await client.connect(transport);
  const close = () => client.close();
  return {
    client,
    received,
    sent,
    notifications: (method) =>
      received
        .filter((m) => 'method' in m && m.method === method && !('id' in m))
        .map((m) => (m as { params?: Record<string, unknown> }).params ?? {}),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** An agent on an HTTP endpoint (a 2025-era session, or 2026-07-28 per-request traffic). */
export function httpAgent(url: URL, options: TestAgentOptions = {}): Promise<TestAgent> {
  return connect(newClient(options), new StreamableHTTPClientTransport(url));
}

/** A 2025-era agent connected in memory to a fresh `aggregator.createServer()` (an aggregator, a hub). */
export async function memoryAgent(
  aggregator: ServerFactory,
  options: TestAgentOptions = {},
): Promise<TestAgent> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = aggregator.createServer({ era: 'legacy' });
  await server.connect(serverSide);
  const agent = await connect(newClient({ ...options, era: 'legacy' }), clientSide);
  const close = async () => {
    await agent.client.close();
    await server.close();
  };
  return { ...agent, close, [Symbol.asyncDispose]: close };
}

/** A connected client that closes with `await using`. */
export type TestClient = Client & { [Symbol.asyncDispose](): Promise<void> };

function disposable(client: Client): TestClient {
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** A plain v2 client over an in-memory pair to `target.createServer({ era: 'legacy' })` (2025 era). */
export async function connectInMemory(target: ServerFactory): Promise<TestClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await target.createServer({ era: 'legacy' }).connect(serverSide);
  const client = new Client({ name: 'hub-test-agent', version: '0.0.0' });
  await client.connect(clientSide);
  return disposable(client);
}

/** A plain v2 client over Streamable HTTP: `modern` negotiates 2026-07-28, `legacy` the 2025 era with a session. */
export async function connectHttp(url: URL, era: 'legacy' | 'modern'): Promise<TestClient> {
  const client = new Client(
    { name: `hub-test-agent-${era}`, version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return disposable(client);
}
