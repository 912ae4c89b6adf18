import type { Aggregator } from '@mcppipe/aggregator';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';

/** What the warm-up listed (first page each): the single-upstream table's counts (`12+` when there were more pages). */
export type ListedCounts = Partial<Record<'tools' | 'prompts' | 'resources', string>>;

const countOf = (
  r: PromiseSettledResult<({ nextCursor?: string } & Record<string, unknown>) | undefined>,
  key: string,
) => {
  if (r.status !== 'fulfilled' || r.value === undefined) return undefined;
  const items = r.value[key];
  return Array.isArray(items) ? `${items.length}${r.value.nextCursor ? '+' : ''}` : undefined;
};

/**
 * Fills the aggregator's per-upstream list caches through its own server, in process, so the startup table
 * has counts and the first agent's lists come from cache. Failures are ignored (the table shows `-`).
 *
 * @param aggregator - the aggregator to warm
 * @returns the counts listed (what a single-upstream table shows: that mode forwards lists, it caches none)
 */
export async function warmLists(aggregator: Aggregator): Promise<ListedCounts> {
  const counts: ListedCounts = {};
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'mcppipe-warmup', version: '1' });
  let server: ReturnType<Aggregator['createServer']> | undefined;
  try {
    // internal: not an agent's handshake, so a failed upstream stays failed (A12) and the table shows it so
    server = aggregator.createServer({ era: 'legacy', internal: true }); // throws once closed (stopping)
    await server.connect(serverSide);
    await client.connect(clientSide);
    const caps = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources] = await Promise.allSettled([
      caps.tools ? client.listTools() : undefined,
      caps.prompts ? client.listPrompts() : undefined,
      caps.resources ? client.listResources() : undefined,
    ]);
    for (const [key, r] of [
      ['tools', tools],
      ['prompts', prompts],
      ['resources', resources],
    ] as const) {
      const n = countOf(r as PromiseSettledResult<Record<string, unknown> | undefined>, key);
      if (n !== undefined) counts[key] = n;
    }
  } catch {
    // best effort
  } finally {
    await client.close().catch(() => {});
    await server?.close().catch(() => {});
  }
  return counts;
}
