/** One row of the startup table. */
export interface UpstreamRow {
  name: string;
  transport: string;
  version: string;
  phase: string;
  tools: number | string;
  prompts: number | string;
  resources: number | string;
  startMs: number | string;
  lastError: string;
}

const headers: Record<keyof UpstreamRow, string> = {
  name: 'UPSTREAM',
  transport: 'TRANSPORT',
  version: 'PROTOCOL',
  phase: 'PHASE',
  tools: 'TOOLS',
  prompts: 'PROMPTS',
  resources: 'RESOURCES',
  startMs: 'START',
  lastError: 'LAST ERROR',
};

/**
 * Renders upstream rows as an aligned plain-text table (no colours, so it reads in any log).
 *
 * @param rows - one row per upstream
 * @param maxErrorWidth - long errors are cut to this many characters
 * @returns the table text, one line per row plus a header
 */
export function renderTable(rows: readonly UpstreamRow[], maxErrorWidth = 60): string {
  const keys = Object.keys(headers) as (keyof UpstreamRow)[];
  const cells = [
    keys.map((k) => headers[k]),
    ...rows.map((row) =>
      keys.map((k) => {
        const v = k === 'startMs' && typeof row[k] === 'number' ? `${row[k]} ms` : String(row[k]);
        return k === 'lastError' && v.length > maxErrorWidth ? `${v.slice(0, maxErrorWidth - 1)}…` : v;
      }),
    ),
  ];
  const widths = keys.map((_, i) => Math.max(...cells.map((c) => (c[i] ?? '').length)));
  return cells
    .map((c) =>
      c
        .map((v, i) => v.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
