/**
 * Calling the hub's meta-tools from a real SDK v2 client, and the demo layout the hub tests run over.
 *
 * @module
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { fixturePath, referenceServerPath, sampleFilesDir } from './servers.js';
import type { TestUpstream } from './supervised.js';

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
