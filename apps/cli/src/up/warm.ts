import type { Aggregator } from '@mcppipe/aggregator';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';

/**
 * Fills the aggregator's per-upstream list caches through its own server, in process, so the startup table
 * has counts and the first agent's lists come from cache. Failures are ignored (the table shows `-`).
 *
 * @param aggregator - the aggregator to warm
 */
export async function warmLists(aggregator: Aggregator): Promise<void> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'mcppipe-warmup', version: '1' });
  let server: ReturnType<Aggregator['createServer']> | undefined;
  try {
    // internal: not an agent's handshake, so a failed upstream stays failed (A12) and the table shows it so
    server = aggregator.createServer({ era: 'legacy', internal: true }); // throws once closed (stopping)
    await server.connect(serverSide);
    await client.connect(clientSide);
    const caps = client.getServerCapabilities() ?? {};
    await Promise.allSettled([
      caps.tools ? client.listTools() : undefined,
      caps.prompts ? client.listPrompts() : undefined,
      caps.resources ? client.listResources() : undefined,
    ]);
  } catch {
    // best effort
  } finally {
    await client.close().catch(() => {});
    await server?.close().catch(() => {});
  }
}
