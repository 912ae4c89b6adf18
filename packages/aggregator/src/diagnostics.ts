import type { Core } from './core.js';
import type { AggregatorDiagnostics, ListKind, UpstreamDiagnostics } from './types.js';

const KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/**
 * The per-upstream report of what the aggregator changed about the upstreams' lists and why: dropped
 * items, shortened names, list walks that stopped early, failed fetches. Built from the caches, so it
 * covers the lists fetched so far.
 */
export function diagnosticsOf(core: Core): AggregatorDiagnostics {
  const upstreams: UpstreamDiagnostics[] = core.registry.list().map((snap) => {
    const report: UpstreamDiagnostics = {
      upstream: snap.name,
      phase: snap.phase,
      generation: snap.generation,
      lists: {},
      dropped: [],
      renamed: [],
    };
    for (const kind of KINDS) {
      const entry = core.lists.peek(snap.name, kind);
      if (entry === undefined) continue;
      report.lists[kind] = { ...entry.report };
      report.dropped.push(...entry.dropped);
      report.renamed.push(...entry.renamed);
    }
    return report;
  });
  return { mode: core.options.mode, upstreams };
}
