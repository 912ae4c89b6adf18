import type { AddressInfo } from 'node:net';
import type { Aggregator } from '@mcppipe/aggregator';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { renderTable } from '../table.js';
import type { UpstreamRow } from '../table.js';

/**
 * Prints the startup table of upstreams to stderr: transport, protocol version, phase, counts, start time
 * and last error.
 *
 * @param options - `startedAt`: when the upstreams started (epoch ms); `title`: a line printed above the table
 *   (`mcppipe: <title>`), e.g. when it is printed again
 */
export function printTable(
  registry: UpstreamRegistry,
  aggregator: Aggregator,
  options: { startedAt: number; title?: string },
): void {
  const { startedAt, title } = options;
  const counts = new Map(aggregator.diagnostics().upstreams.map((d) => [d.upstream, d.lists]));
  const rows: UpstreamRow[] = registry.list().map((u) => {
    const c = counts.get(u.name);
    return {
      name: u.name,
      transport: u.spec.transport,
      version: u.protocolVersion ?? '-',
      phase: u.phase,
      tools: c?.tools?.count ?? '-',
      prompts: c?.prompts?.count ?? '-',
      resources: c?.resources?.count ?? '-',
      startMs: u.phase === 'available' ? Math.max(0, u.lastChangeAt - startedAt) : '-',
      lastError: u.lastError?.split('\n')[0] ?? '',
    };
  });
  process.stderr.write(`\n${title ? `mcppipe: ${title}\n` : ''}${renderTable(rows)}\n\n`);
}

/** Prints the endpoint URL and a ready-to-paste line for adding it to a client. */
export function printReady(
  url: string,
  extra: { hub: boolean; metrics: AddressInfo | undefined; mode: 'single' | 'aggregate' },
): void {
  const lines = [
    `mcppipe: serving ${url}${extra.mode === 'single' ? ' (single upstream, forwarded verbatim)' : ''}`,
    ...(extra.hub ? [`mcppipe: hub at ${url.replace(/\/mcp$/, '/hub')}`] : []),
    ...(extra.metrics
      ? [`mcppipe: metrics at http://${extra.metrics.address}:${extra.metrics.port}/metrics`]
      : []),
    `  add it to Claude Code:  claude mcp add --transport http mcppipe ${url}`,
    `  or inspect it:          npx -y @modelcontextprotocol/inspector --cli ${url} --method tools/list`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

export { warmLists } from './warm.js';
