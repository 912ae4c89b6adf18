/**
 * The aggregator tests' layout: server-everything, server-memory and the fault fixture over stdio in one
 * {@link TestRegistry}, one aggregator over them (made by the caller: test-utils does not import the aggregator)
 * and one in-memory agent, plus small helpers the tests share.
 *
 * @module
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { memoryAgent } from './agents.js';
import type { ServerFactory, TestAgent } from './agents.js';
import { captureLogger } from './logger.js';
import { RAW, TestRegistry } from './registry.js';
import type { SnapshotBase } from './registry.js';
import { fixturePath, referenceServerPath } from './servers.js';

type Obj = Record<string, unknown>;

/** The running layout. */
export interface TestLayout<S extends SnapshotBase, A> {
  registry: TestRegistry<S>;
  aggregator: A;
  agent: TestAgent;
  logger: ReturnType<typeof captureLogger>;
  close(): Promise<void>;
}

/**
 * Starts everything, memory and faults, an aggregator over them (`create`) and an agent.
 *
 * @param create - makes the aggregator: `(registry, logger) => createAggregator({ registry, logger, ...options })`
 */
export async function startLayout<
  S extends SnapshotBase,
  A extends ServerFactory & { close(): Promise<void> },
>(
  create: (registry: TestRegistry<S>, logger: ReturnType<typeof captureLogger>) => A,
): Promise<TestLayout<S, A>> {
  const registry = await TestRegistry.start<S>([
    { name: 'memory', script: referenceServerPath('memory'), env: { MEMORY_FILE_PATH: '/dev/null' } },
    { name: 'faults', script: fixturePath('agg-faults.mjs') },
    { name: 'everything', script: referenceServerPath('everything') },
  ]);
  const logger = captureLogger();
  const aggregator = create(registry, logger);
  const agent = await memoryAgent(aggregator);
  return {
    registry,
    aggregator,
    agent,
    logger,
    async close() {
      await agent.close();
      await aggregator.close();
      await registry.close();
    },
  };
}

/** Every item of a paged list, following `nextCursor` (at most 50 pages). */
export async function allPages(
  key: string,
  page: (cursor: string | undefined) => Promise<Obj>,
): Promise<Obj[]> {
  const items: Obj[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const result = await page(cursor);
    items.push(...(result[key] as Obj[]));
    cursor = result['nextCursor'] as string | undefined;
    if (!cursor) return items;
  }
  throw new Error('too many pages');
}

/** Every item of a merged list, as the agent receives it (raw). */
export function agentList(agent: TestAgent, method: string, key: string): Promise<Obj[]> {
  return allPages(key, (cursor) => agent.client.request({ method, params: cursor ? { cursor } : {} }, RAW));
}

/** The error a request rejected with; fails unless it is a JSON-RPC error. */
export async function rpcError(p: Promise<unknown>): Promise<ProtocolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ProtocolError)) throw new Error(`expected a JSON-RPC error, got ${String(err)}`);
  return err;
}

/** The text of a result's first content block. */
export const text = (result: Obj): string | undefined => (result['content'] as { text?: string }[])[0]?.text;
