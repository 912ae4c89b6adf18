// The printed table and the targets summary.

const fmt = (v, unit) => {
  if (v === undefined || Number.isNaN(v)) return '-';
  if (unit === 'calls/s' || unit === 'req/s') return `${v.toFixed(0)} ${unit}`;
  if (unit === 'MB') return `${v.toFixed(1)} MB`;
  if (unit === 'ms') return v >= 100 ? `${v.toFixed(0)} ms` : `${v.toFixed(v < 1 ? 3 : 2)} ms`;
  return `${v}${unit ? ` ${unit}` : ''}`;
};

/** Renders rows as a Markdown table (also readable in a terminal). */
export function table(rows) {
  const header = ['', 'scenario', 'mcppipe', 'baseline', 'ratio', 'target'];
  const lines = rows.map((r) => [
    r.id,
    r.what,
    fmt(r.value, r.unit),
    r.baseline === undefined ? '' : `${fmt(r.baseline, r.unit === 'MB' ? 'MB' : r.unit)} (${r.baselineName})`,
    r.ratio === undefined || Number.isNaN(r.ratio)
      ? (r.extra ?? '')
      : `${r.ratio.toFixed(2)}×${r.extra ? ` (${r.extra})` : ''}`,
    r.target ? `${r.target} ${r.met === undefined ? 'pending' : r.met ? 'met' : 'MISSED'}` : '',
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i].length)));
  const row = (l) => `| ${l.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [row(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(row)].join('\n');
}

const TARGETS = {
  T1: 'mcppipe CPU per tools/call at c=16 ≤ 0.25 ms (upstream excluded)',
  T2: 'R1 throughput at c=16 ≥ 1.0× the SDK in-process floor',
  T3: 'R1 p50 at c=1 ≤ 1.2× the floor p50',
  T4: 'R3 cached tools/list, 20 upstreams ≤ 1.5× 1 upstream',
  T5: 'R4 RSS growth ≤ 5 MB',
  T6: 'R5 cold start ≤ slowest upstream + 100 ms',
  T6a: "R5 mcppipe's own CPU until it listens ≤ 350 ms (issue 21)",
  T6b: 'R5/R5s first complete tools/list ≤ slowest upstream + 250 ms (issue 21)',
  T7: 'R6 401 rate ≥ 0.5× a Fastify 401 route',
  T8: 'R7 tools/call through relay + tunnel at c=16 ≥ 0.7× straight to mcppipe up',
  T9: 'R7 added p50 at c=1 through relay + tunnel ≤ 0.5 ms',
  T10: 'R7 relay CPU per call ≤ 0.15 ms',
  T11: 'R8 relay RSS with 1,000 idle tunnels ≤ 300 MB',
  T12: 'R8 a call through tunnel #1,000 as fast as through tunnel #1 (p50 ≤ 1.2×)',
};

/** One line per target: met / missed with the numbers of every row that carries it. */
export function targetSummary(rows) {
  const out = [];
  for (const [t, text] of Object.entries(TARGETS)) {
    const rs = rows.filter((r) => r.target === t);
    if (rs.length === 0) {
      out.push(`${t} ${text}: not measured`);
      continue;
    }
    const parts = rs.map((r) => {
      const state = r.met === undefined ? 'pending' : r.met ? 'met' : 'MISSED';
      const byValue = r.limit?.maxValue !== undefined || r.ratio === undefined || Number.isNaN(r.ratio);
      const num = byValue ? fmt(r.value, r.unit) : `${r.ratio.toFixed(2)}×`;
      return `${state} (${r.what}: ${num}${r.extra ? `, ${r.extra}` : ''})`;
    });
    out.push(`${t} ${text}: ${parts.join('; ')}`);
  }
  return out;
}
