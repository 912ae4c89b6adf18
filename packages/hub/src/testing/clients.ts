/**
 * Test-only: real SDK v2 clients connected to a hub, and small helpers to call the meta-tools. Not exported by
 * the package.
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { fixturePath, referenceServerPath, sampleFilesDir } from '@mcppipe/test-utils';
import type { Hub } from '../types.js';
import type { TestUpstream } from './supervisor.js';

/** A connected client that closes with `await using`. */
export type TestClient = Client & { [Symbol.asyncDispose](): Promise<void> };

function disposable(client: Client): TestClient {
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** A v2 client over an in-memory pair to `hub.createServer()` (2025 era). */
export async function connectInMemory(hub: Hub): Promise<TestClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await hub.createServer({ era: 'legacy' }).connect(serverSide);
  const client = new Client({ name: 'hub-test-agent', version: '0.0.0' });
  await client.connect(clientSide);
  return disposable(client);
}

/** A v2 client over Streamable HTTP: `modern` negotiates 2026-07-28, `legacy` the 2025 era with a session. */
export async function connectHttp(url: URL, era: 'legacy' | 'modern'): Promise<TestClient> {
  const client = new Client(
    { name: `hub-test-agent-${era}`, version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return disposable(client);
}

/** Calls a meta-tool and returns the raw result. */
export async function meta(
  client: Client,
  name: string,
  args?: Record<string, unknown>,
): Promise<CallToolResult> {
  return client.callTool({ name, ...(args === undefined ? {} : { arguments: args }) });
}

/** Calls `call_tool` with request options (progress callback, abort signal, client-side timeout). */
export async function callToolWith(
  client: Client,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[1],
): Promise<CallToolResult> {
  return client.callTool({ name: 'call_tool', arguments: args }, options);
}

/** `structuredContent` of a successful meta-tool result (throws on an error result). */
export function data<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`unexpected error result: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** `structuredContent.error` of an error result (throws on a success). */
export function errorOf(result: CallToolResult): { code: string; message: string; [key: string]: unknown } {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return (result.structuredContent as { error: { code: string; message: string } }).error;
}

/** The demo layout's real reference servers plus the hub fixture; filesystem is `"hub": false` when asked. */
export function demoUpstreams(options: {
  memoryFile: string;
  hideFilesystem?: boolean;
  fixtureEnv?: Record<string, string>;
}): TestUpstream[] {
  return [
    { name: 'everything', args: [referenceServerPath('everything'), 'stdio'] },
    { name: 'memory', args: [referenceServerPath('memory')], env: { MEMORY_FILE_PATH: options.memoryFile } },
    {
      name: 'filesystem',
      args: [referenceServerPath('filesystem'), sampleFilesDir],
      ...(options.hideFilesystem ? { hub: false } : {}),
    },
    {
      name: 'fixture',
      args: [fixturePath('hub-fixture.mjs')],
      ...(options.fixtureEnv ? { env: options.fixtureEnv } : {}),
    },
  ];
}
