import { ANONYMOUS, type PolicyKind } from '@mcppipe/policy';
import type { Core } from './core.js';
import type { CachedList } from './listCache.js';
import type { AggregatorDiagnostics, ListKind, UpstreamDiagnostics } from './types.js';

const KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];
const POLICY_KIND: Record<ListKind, PolicyKind> = {
  tools: 'tool',
  prompts: 'prompt',
  resources: 'resource',
  resourceTemplates: 'resource',
};

/** How many of a cached list the policy hides from `anonymous` (tools and prompts by exposed name, resources by upstream). */
function hiddenOf(core: Core, kind: ListKind, entry: CachedList): number {
  const gate = core.options.policy;
  if (gate === undefined) return 0;
  const policyKind = POLICY_KIND[kind];
  if (policyKind === 'resource')
    return gate.allows('resource', entry.upstream, ANONYMOUS) ? 0 : entry.items.length;
  let hidden = 0;
  for (const item of entry.items) if (!gate.allows(policyKind, String(item['name']), ANONYMOUS)) hidden++;
  return hidden;
}

/**
 * The per-upstream report of what the aggregator changed about the upstreams' lists and why: dropped
 * items, shortened names, list walks that stopped early, failed fetches, and how many items the tool policy hides
 * from `anonymous`. Built from the caches, so it covers the lists fetched so far.
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
      const hidden = hiddenOf(core, kind, entry);
      if (hidden > 0) report.lists[kind].hidden = hidden;
      report.dropped.push(...entry.dropped);
      report.renamed.push(...entry.renamed);
    }
    return report;
  });
  return { mode: core.options.mode, upstreams };
}
