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
 * Breaks `text` into lines of at most `width` characters at spaces (a longer word is split), at most `maxLines`
 * lines; the last line ends in `…` when text was left out.
 */
function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(' ').filter((w) => w !== '')) {
    while (word.length > 0) {
      const room = line === '' ? width : width - line.length - 1;
      if (word.length <= room) {
        line = line === '' ? word : `${line} ${word}`;
        word = '';
      } else if (line !== '') {
        lines.push(line);
        line = '';
      } else {
        lines.push(word.slice(0, width));
        word = word.slice(width);
      }
    }
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1] ?? '';
  kept[maxLines - 1] = `${last.length < width ? last : last.slice(0, width - 1)}…`;
  return kept;
}

/**
 * Renders upstream rows as an aligned plain-text table (no colours, so it reads in any log). A long error wraps
 * within its column onto up to `maxErrorLines` lines (the reason often comes after the exit status: a refused
 * URL, the first stderr line); the full error is in the log.
 *
 * @param rows - one row per upstream
 * @param maxErrorWidth - the error column wraps at this many characters
 * @param maxErrorLines - lines of one error at most; the last ends in `…` when text was left out
 * @returns the table text, one line per row (plus error continuation lines) and a header
 */
export function renderTable(rows: readonly UpstreamRow[], maxErrorWidth = 60, maxErrorLines = 4): string {
  const keys = Object.keys(headers) as (keyof UpstreamRow)[];
  const errors = rows.map((row) => wrap(row.lastError, maxErrorWidth, maxErrorLines));
  const cells = [
    keys.map((k) => headers[k]),
    ...rows.map((row, r) =>
      keys.map((k) => {
        if (k === 'lastError') return errors[r]?.[0] ?? '';
        return k === 'startMs' && typeof row[k] === 'number' ? `${row[k]} ms` : String(row[k]);
      }),
    ),
  ];
  const widths = keys.map((_, i) => Math.max(...cells.map((c) => (c[i] ?? '').length)));
  const indent = ' '.repeat(widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0));
  return cells
    .flatMap((c, r) => [
      c
        .map((v, i) => v.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
      ...(r === 0 ? [] : (errors[r - 1]?.slice(1) ?? [])).map((line) => `${indent}${line}`),
    ])
    .join('\n');
}
