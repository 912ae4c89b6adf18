/**
 * The handshake surface of the aggregate (DESIGN.md A5): merged capabilities, merged instructions.
 *
 * Decision: `tools`, `prompts` and `resources` are advertised (with `listChanged`) when any upstream
 * declared them or when an upstream has not finished its first handshake yet (it may join later with a
 * `list_changed`, and a 2025-era session cannot learn new capabilities). `completions`, `logging` and
 * `resources.subscribe` are advertised only when an upstream that completed a handshake declared them.
 * Nothing else is advertised: only what the aggregator serves.
 */
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import type { ServerCapabilities } from '@modelcontextprotocol/server';

function declared(snapshots: readonly UpstreamSnapshot[], key: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of snapshots) {
    const value = s.capabilities?.[key];
    if (typeof value === 'object' && value !== null) out.push(value as Record<string, unknown>);
  }
  return out;
}

/**
 * Merges the capabilities of every upstream for the aggregate.
 *
 * @param snapshots - every upstream in the layout
 * @returns the capabilities agents are offered
 */
export function mergeCapabilities(snapshots: readonly UpstreamSnapshot[]): ServerCapabilities {
  const pending = snapshots.some((s) => s.capabilities === undefined);
  const caps: ServerCapabilities = {};
  if (pending || declared(snapshots, 'tools').length > 0) caps.tools = { listChanged: true };
  if (pending || declared(snapshots, 'prompts').length > 0) caps.prompts = { listChanged: true };
  const resources = declared(snapshots, 'resources');
  if (pending || resources.length > 0) {
    caps.resources = {
      listChanged: true,
      ...(resources.some((r) => r['subscribe'] === true) ? { subscribe: true } : {}),
    };
  }
  if (declared(snapshots, 'completions').length > 0) caps.completions = {};
  if (declared(snapshots, 'logging').length > 0) caps.logging = {};
  return caps;
}

/**
 * Merges the instructions of every upstream under a heading per upstream, alphabetically.
 *
 * @param snapshots - every upstream in the layout
 * @returns the merged text, or undefined when no upstream gave instructions
 */
export function mergeInstructions(snapshots: readonly UpstreamSnapshot[]): string | undefined {
  const parts = [...snapshots]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((s) => typeof s.instructions === 'string' && s.instructions.trim() !== '')
    .map((s) => `## ${s.name}\n\n${(s.instructions as string).trim()}`);
  if (parts.length === 0) return undefined;
  return `This server aggregates several MCP servers; their tools and prompts are named <server>__<name>.\n\n${parts.join('\n\n')}`;
}

/** Capabilities of a single upstream forwarded verbatim (before its first handshake: the list trio). */
export function singleCapabilities(snapshot: UpstreamSnapshot | undefined): ServerCapabilities {
  if (snapshot?.capabilities !== undefined) return { ...snapshot.capabilities } as ServerCapabilities;
  return { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } };
}

/**
 * Capabilities for a server that answers one request and is gone (a 2025-era request without a session):
 * without `listChanged` and `resources.subscribe`, which promise notifications nothing could deliver.
 *
 * @param caps - the capabilities otherwise advertised
 * @returns a copy without the notification promises
 */
export function withoutChangeNotifications(caps: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = { ...caps };
  for (const key of ['tools', 'prompts', 'resources'] as const) {
    const value = caps[key] as Record<string, unknown> | undefined;
    if (value === undefined) continue;
    const { listChanged: _listChanged, subscribe: _subscribe, ...rest } = value;
    out[key] = rest;
  }
  return out;
}
