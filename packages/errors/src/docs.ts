/** One documented error code, parsed from the doc comments of `codes.ts`. */
export interface ErrorCodeDoc {
  code: string;
  pkg: string;
  description: string;
}

/**
 * Parses the doc comments of the code list (the source text of `codes.ts`).
 *
 * @param source - the text of `src/codes.ts`
 * @returns each code with its package and doc comment, in file order
 */
export function parseErrorCodeDocs(source: string): ErrorCodeDoc[] {
  const docs: ErrorCodeDoc[] = [];
  const re = /\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*\n\s*(MCPP_[A-Z0-9_]+):\s*'([^']+)'/g;
  for (const m of source.matchAll(re)) {
    const description = (m[1] ?? '')
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ');
    docs.push({ code: m[2] ?? '', pkg: m[3] ?? '', description });
  }
  return docs;
}

/**
 * Renders `docs/errors.md` from the parsed code list.
 *
 * @param docs - the output of {@link parseErrorCodeDocs}
 * @returns the Markdown text of the page
 */
export function renderErrorCodeDocs(docs: readonly ErrorCodeDoc[]): string {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from packages/errors/src/codes.ts by `pnpm --filter @mcppipe/errors docs`; a test fails on drift. -->',
    '',
    'Every error mcppipe throws on purpose is a `McpPipeError` with one of these stable codes. Codes are never reused.',
    'Errors that cross the wire are JSON-RPC errors instead (see the aggregator README).',
    '',
    '| code | package | meaning |',
    '| --- | --- | --- |',
  ];
  for (const d of docs)
    lines.push(`| \`${d.code}\` | \`${d.pkg}\` | ${d.description.replace(/\|/g, '\\|')} |`);
  return `${lines.join('\n')}\n`;
}
