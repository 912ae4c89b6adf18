import type { AddressInfo } from 'node:net';
import type { Aggregator, UpstreamDiagnostics, UpstreamListReport } from '@mcppipe/aggregator';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { renderTable } from '../table.js';
import type { UpstreamRow } from '../table.js';

/** The Inspector the paste line runs: pinned, the version whose `--cli --header` was tried against `mcppipe up`. */
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

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
  options: { startedAt: number; title?: string; listed?: ListedCounts },
): void {
  const { startedAt, title } = options;
  const report = aggregator.diagnostics();
  const diagnostics = report.upstreams;
  // single-upstream mode caches no list: the warm-up's own counts are that one upstream's
  const listed = report.mode === 'single' ? options.listed : undefined;
  const counts = new Map(diagnostics.map((d) => [d.upstream, d.lists]));
  const rows: UpstreamRow[] = registry.list().map((u) => {
    const c = counts.get(u.name);
    return {
      name: u.name,
      transport: u.spec.transport,
      version: u.protocolVersion ?? '-',
      phase: u.phase,
      tools: c?.tools ? served(c.tools) : (listed?.tools ?? '-'),
      prompts: c?.prompts ? served(c.prompts) : (listed?.prompts ?? '-'),
      resources: c?.resources?.count ?? listed?.resources ?? '-',
      startMs: u.phase === 'available' ? Math.max(0, u.lastChangeAt - startedAt) : '-',
      lastError: u.lastError?.split('\n')[0] ?? '',
    };
  });
  process.stderr.write(
    `\n${title ? `mcppipe: ${title}\n` : ''}${renderTable(rows)}\n${hiddenLine(diagnostics)}${renamedLines(diagnostics)}\n`,
  );
}

/** What an agent lists of a fetched list: its count less what the tool policy hides; `-` before the first fetch. */
const served = (list: UpstreamListReport | undefined): number | string =>
  list === undefined ? '-' : list.count - (list.hidden ?? 0);

/**
 * One line under the table when the tool policy (`--deny-tool`, `--allow-tool`, the file's `[policy]`) hides tools
 * or prompts, so the counts above (what an agent lists) add up: `policy: 9 of 12 tools and 1 of 3 prompts hidden
 * (--deny-tool, --allow-tool, [policy]; counts above are what an agent lists)`. Empty when nothing is hidden.
 */
export function hiddenLine(diagnostics: readonly UpstreamDiagnostics[]): string {
  const parts: string[] = [];
  for (const [kind, label] of [
    ['tools', 'tools'],
    ['prompts', 'prompts'],
  ] as const) {
    let hidden = 0;
    let total = 0;
    for (const d of diagnostics) {
      hidden += d.lists[kind]?.hidden ?? 0;
      total += d.lists[kind]?.count ?? 0;
    }
    if (hidden > 0) parts.push(`${hidden} of ${total} ${label}`);
  }
  return parts.length === 0
    ? ''
    : `policy: ${parts.join(' and ')} hidden (--deny-tool, --allow-tool, [policy]; the counts above are what an agent lists)\n`;
}

/**
 * The tools and prompts exposed under another name than `<upstream>__<original>` (DESIGN.md A15), one line
 * each under the table, so a user sees at startup which names agents get: `  <upstream>: tool "calendar.read"
 * exposed as cal__calendar_read-1a2b3c4d (characters outside [A-Za-z0-9_-])`. Empty when nothing was renamed.
 */
export function renamedLines(diagnostics: readonly UpstreamDiagnostics[]): string {
  const lines = diagnostics.flatMap((d) =>
    d.renamed.map(
      (r) =>
        `  ${d.upstream}: ${r.kind === 'tools' ? 'tool' : 'prompt'} ${JSON.stringify(r.original)} exposed as ${r.exposed} (${r.reason === 'shortened' ? 'too long' : 'characters outside [A-Za-z0-9_-]'})`,
    ),
  );
  return lines.length === 0
    ? ''
    : `renamed for model APIs (see docs/cli.md "Exposed names"):\n${lines.join('\n')}\n`;
}

/**
 * The public URL as the client lines print it: on a `*.localhost` zone (a relay on this machine) its path form on
 * 127.0.0.1 (T4: `/t/<subdomain>--<account>/…`), since Node's `fetch`, and so most agents' SDKs, do not resolve
 * `*.localhost` names (curl and browsers do); any other URL as it is.
 *
 * @param publicUrl - the URL the relay handed out (`http://laptop--alice.tunnel.localhost:3000/mcp`)
 * @returns the URL to paste (`http://127.0.0.1:3000/t/laptop--alice/mcp`)
 */
export function pasteUrl(publicUrl: string): string {
  const u = new URL(publicUrl);
  if (!u.hostname.endsWith('.localhost')) return publicUrl;
  const label = u.hostname.slice(0, u.hostname.indexOf('.'));
  return `${u.protocol}//127.0.0.1${u.port === '' ? '' : `:${u.port}`}/t/${label}${u.pathname}`;
}

/**
 * Prints the endpoint URL and a ready-to-paste line for adding it to a client; with `--transport stdio` (no URL), that
 * it serves on stdin/stdout; with a connected tunnel (T2) the line under the table names the public URL and the
 * client line uses it; with `--tunnel-auth api-key` the Claude Code and Inspector lines add the key as a header, named
 * by its variable (`$MCPPIPE_API_KEY`), never its value. Always to stderr: stdout may be the MCP channel.
 */
export function printReady(
  url: string | undefined,
  extra: {
    hub: boolean;
    metrics: AddressInfo | undefined;
    mode: 'single' | 'aggregate';
    tunnel?: { line: string; publicUrl: string | undefined; auth?: string } | undefined;
  },
): void {
  const single = extra.mode === 'single' ? ' (single upstream, forwarded verbatim)' : '';
  const metrics = extra.metrics
    ? [`mcppipe: metrics at http://${extra.metrics.address}:${extra.metrics.port}/metrics`]
    : [];
  if (url === undefined) {
    process.stderr.write(`${[`mcppipe: serving MCP on stdin/stdout${single}`, ...metrics].join('\n')}\n`);
    return;
  }
  const paste = extra.tunnel?.publicUrl === undefined ? url : pasteUrl(extra.tunnel.publicUrl);
  // an api-key tunnel answers 401 without the owner's key (T5): the pasted line must carry it
  const header =
    extra.tunnel?.publicUrl && extra.tunnel.auth === 'api-key'
      ? ' --header "Authorization: Bearer $MCPPIPE_API_KEY"'
      : '';
  const lines = [
    `mcppipe: serving ${url}${single}`,
    ...(extra.hub ? [`mcppipe: hub at ${url.replace(/\/mcp$/, '/hub')}`] : []),
    ...metrics,
    ...(extra.tunnel ? [`mcppipe: ${extra.tunnel.line}`] : []),
    `  add it to Claude Code:  claude mcp add --transport http mcppipe ${paste}${header}`,
    `  or inspect it:          npx -y ${INSPECTOR} --cli ${paste}${header} --method tools/list`,
    // the variable names a key of the account, where the agent runs (it may be another key than the tunnel's)
    ...(header
      ? ['  (set MCPPIPE_API_KEY there to an API key of your account: mcppipe-gateway keys create)']
      : []),
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

export { warmLists } from './warm.js';
import type { ListedCounts } from './warm.js';
